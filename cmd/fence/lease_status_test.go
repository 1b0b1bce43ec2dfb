package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/filestore"
)

// status on a domain whose manifest is corrupt still prints the lease
// (who holds it, with which token), then says the manifest is corrupt,
// naming the object and what is wrong, and exits 1; --json the same.
func TestLeaseStatusCorruptManifest(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--ttl", "1m", "--holder", "worker-b")
	b, err := filestore.Open(strings.TrimPrefix(c.store, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(context.Background(), "d/_fence/manifest.json", strings.NewReader("{not json"), 9, driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}

	r := c.want(1, "", "lease", "status", "d")
	for _, want := range []string{"holder         worker-b", "token          " + tok(t1), "live           yes",
		"store highest  unknown: the manifest is corrupt", "manifest       corrupt: d/_fence/manifest.json: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status with a corrupt manifest: stdout lacks %q:\n%s", want, r)
		}
	}
	if !strings.Contains(r.stderr, `corrupt manifest "d/_fence/manifest.json"`) {
		t.Errorf("status with a corrupt manifest: stderr does not name it:\n%s", r)
	}

	// With --json the error is JSON on stderr too.
	if r = c.run("", "--json", "lease", "status", "d"); r.code != 1 || !strings.Contains(r.stderr, `"code":1`) {
		t.Fatalf("status --json with a corrupt manifest: want exit 1 and a JSON error, got %s", r)
	}
	var s leaseStatus
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("status --json printed %q: %v", r.stdout, err)
	}
	if s.Holder != "worker-b" || s.Token != t1 || !s.Live || !s.Corrupt || !strings.HasPrefix(s.ManifestError, "corrupt: d/_fence/manifest.json: ") {
		t.Errorf("status --json with a corrupt manifest = %+v, want the lease of worker-b at token %d and the manifest named corrupt", s, t1)
	}
}
