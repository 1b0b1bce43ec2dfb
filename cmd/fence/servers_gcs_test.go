package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gcsEndpointEnv holds the endpoint of the fake-gcs-server that
// deploy/local/servers.sh starts.
const gcsEndpointEnv = "FENCE_TEST_GCS_ENDPOINT"

// The new user's sequence with --store gs://...?endpoint=... (gcsstore on
// fake-gcs-server) and bucket leases kept in the store; then exec
// --publish and lease break there.
func TestServersGCS(t *testing.T) {
	ep := os.Getenv(gcsEndpointEnv)
	if ep == "" {
		t.Skipf("fence CLI against fake-gcs-server: %s not set; bash deploy/local/test.sh starts it and sets it", gcsEndpointEnv)
	}
	bucket := unique("fence-cli-gcs-")
	c := newCLI(t)
	c.store = "gs://" + bucket + "/tenant?endpoint=" + ep
	newUserSequence(t, c, []string{"bucket " + bucket},
		"store reachable", "bucket exists", "conditional writes honoured",
		"coordinator reachable", "test acquisition and release")

	c.env = []string{"FENCE_BIN=" + fenceBin}
	if err := os.Mkdir(filepath.Join(c.dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.want(0, "", "exec", "reports", "--ttl", "5s", "--publish", "out:daily", "--",
		"sh", "-c", `echo a,b > out/a.csv`)
	if r := c.want(0, "", "get", "reports", "daily/a.csv"); r.stdout != "a,b\n" {
		t.Fatalf("daily/a.csv = %q", r.stdout)
	}

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
