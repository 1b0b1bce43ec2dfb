package main

import (
	"strings"
	"testing"
)

// --quiet drops put's, rm's and gc's summary lines, keeps their data
// (--json) and errors.
func TestQuiet(t *testing.T) {
	c := newCLI(t)
	t1 := tok(c.acquire("d"))
	for _, args := range [][]string{
		{"--quiet", "put", "d", "k", "-", "--token", t1},
		{"-q", "rm", "d", "k", "--token", t1},
		{"gc", "d", "-q"},
	} {
		if r := c.want(0, "x", args...); r.stdout != "" || r.stderr != "" {
			t.Errorf("fence %q printed %s", args, r)
		}
	}
	if r := c.want(0, "x", "-q", "--json", "put", "d", "k", "-", "--token", t1); !strings.Contains(r.stdout, `"seq"`) {
		t.Errorf("put -q --json printed %q, want the commit", r.stdout)
	}
	if r := c.want(exitError, "", "-q", "get", "d", "missing"); !strings.Contains(r.stderr, "not found") {
		t.Errorf("get -q of a missing key: stderr %q", r.stderr)
	}
}
