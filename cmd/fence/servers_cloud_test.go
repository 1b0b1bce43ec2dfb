package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cloudSequence runs the fence binary against store, a URL of a cloud's
// own API (gs://, azblob://) on its emulator, with bucket leases kept in
// the store: the new user's sequence (doctor, init, doctor, demo, put
// and get with a stale token refused), exec --publish, a takeover while
// exec's command runs, and lease break. kind is what the store calls its
// bucket ("bucket", "container"), name its name.
func cloudSequence(t *testing.T, store, kind, name string) {
	c := newCLI(t)
	c.store = store
	newUserSequence(t, c, []string{kind + " " + name},
		"store reachable", kind+" exists", "conditional writes honoured",
		"coordinator reachable", "test acquisition and release")

	// exec --publish, unchanged from a local directory's.
	c.env = []string{"FENCE_BIN=" + fenceBin}
	if err := os.Mkdir(filepath.Join(c.dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.want(0, "", "exec", "reports", "--ttl", "5s", "--publish", "out:daily", "--",
		"sh", "-c", `echo a,b > out/a.csv`)
	if r := c.want(0, "", "get", "reports", "daily/a.csv"); r.stdout != "a,b\n" {
		t.Fatalf("daily/a.csv = %q", r.stdout)
	}

	// A second holder takes the domain over while exec's command runs:
	// exec publishes nothing of its own.
	stoppedPastItsLease(t, &cli{t: t, store: store, dir: t.TempDir()}, "takeover")

	// lease break: a fenced put after it names the new token; the old
	// value stays.
	t1 := c.acquire("held", "--ttl", "1h", "--holder", "alice")
	c.want(0, "v1", "put", "held", "k", "-", "--token", tok(t1))
	var res struct {
		OldHolder string `json:"old_holder"`
		Token     uint64 `json:"token"`
	}
	r := c.want(0, "", "--json", "lease", "break", "held", "--holder", "ops")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.OldHolder != "alice" || res.Token <= t1 {
		t.Fatalf("lease break printed %q (%v); want alice's lease ended with a token above %d", r.stdout, err, t1)
	}
	r = c.want(exitFenced, "late", "put", "held", "k", "-", "--token", tok(t1))
	if !strings.Contains(r.stderr, tok(res.Token)) {
		t.Errorf("fenced put after lease break: stderr %q does not name token %d", r.stderr, res.Token)
	}
	if r := c.want(0, "", "get", "held", "k"); r.stdout != "v1" {
		t.Fatalf("get after the fenced put = %q, want v1", r.stdout)
	}
}
