package main

import (
	"strings"
	"testing"
)

// A put without FILE is a usage error that says to pass '-', even with
// an empty standard input (it used to commit 0 bytes and exit 0), and
// commits nothing.
func TestPutWithoutFileIsUsage(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d")
	r := c.want(exitUsage, "", "put", "d", "k", "--token", tok(t1))
	if !strings.Contains(r.stderr, "'-'") {
		t.Errorf("put without FILE: stderr %q does not say to pass '-'", r.stderr)
	}
	c.want(exitError, "", "get", "d", "k")
	c.want(0, "", "put", "d", "k", "-", "--token", tok(t1))
}
