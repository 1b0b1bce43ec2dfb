package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGetMissingVersion: when a live key's version object was deleted
// behind fence's back, get says data loss and names the object, not "no
// key" (ls still lists the key).
func TestGetMissingVersion(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d")
	// Larger than a value kept inline in the manifest, so that it has a
	// version object to lose.
	c.want(0, strings.Repeat("x", 5000), "put", "d", "k", "-", "--token", tok(t1))
	versions, err := filepath.Glob(filepath.Join(strings.TrimPrefix(c.store, "file://"), "d.d", "d._fence", "d.v", "f.k%40*"))
	if err != nil || len(versions) != 1 {
		t.Fatalf("version files %v, %v; want one", versions, err)
	}
	if err := os.Remove(versions[0]); err != nil {
		t.Fatal(err)
	}
	r := c.want(exitError, "", "get", "d", "k")
	if !strings.Contains(r.stderr, "data loss") || strings.Contains(r.stderr, "no key") || !strings.Contains(r.stderr, "d/_fence/v/k@") {
		t.Fatalf("get of a key whose version is missing: %s", r)
	}
	c.want(0, "", "ls", "d")
}
