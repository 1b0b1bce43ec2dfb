package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// gc deletes superseded versions past the grace period, keeps live ones,
// and the key still reads.
func TestGC(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--holder", "alice")
	// Values larger than those kept inline in the manifest, so that
	// each has a version object.
	big := func(s string) string { return s + strings.Repeat(".", 5000) }
	c.want(0, big("one"), "put", "d", "k", "-", "--token", tok(t1))
	c.want(0, big("two"), "put", "d", "k", "-", "--token", tok(t1))
	c.want(0, big("three"), "put", "d", "k", "-", "--token", tok(t1))

	var res struct{ Scanned, Live, Deleted, Kept int }
	r := c.want(0, "", "gc", "d", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("gc --json printed %q: %v", r.stdout, err)
	}
	if res.Deleted != 0 || res.Kept != 2 || res.Live != 1 {
		t.Fatalf("gc inside the default grace period: %+v, want 2 kept, 1 live, nothing deleted", res)
	}
	r = c.want(0, "", "gc", "d", "--grace", "0s", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("gc --json printed %q: %v", r.stdout, err)
	}
	if res.Deleted != 2 || res.Live != 1 {
		t.Fatalf("gc --grace 0s: %+v, want 2 deleted, 1 live", res)
	}
	if r := c.want(0, "", "get", "d", "k"); r.stdout != big("three") {
		t.Fatalf("get after gc = %q", r.stdout)
	}
	c.want(1, "", "gc", "nothing-here")
}
