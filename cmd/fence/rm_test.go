package main

import (
	"strings"
	"testing"
)

// rm deletes several keys in one commit; a stale token is fenced (exit
// 3) and deletes nothing; rm without a key or a token is a usage error.
func TestRm(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--holder", "alice", "--ttl", "1s")
	for _, k := range []string{"a", "b", "c"} {
		c.want(0, k, "put", "d", k, "-", "--token", tok(t1))
	}
	r := c.want(0, "", "rm", "d", "a", "b", "--token", tok(t1))
	if !strings.Contains(r.stdout, `deleted "a" "b" in domain "d"`) {
		t.Errorf("rm printed %q", r.stdout)
	}
	if r := c.want(0, "", "ls", "d"); strings.Count(r.stdout, "\n") != 2 || !strings.Contains(r.stdout, "\nc ") {
		t.Errorf("after rm a b, ls printed %q, want only c", r.stdout)
	}
	c.want(exitError, "", "get", "d", "a")

	t2 := c.acquire("d", "--holder", "bob", "--wait")
	r = c.want(exitFenced, "", "rm", "d", "c", "--token", tok(t1))
	if !strings.Contains(r.stderr, "fenced") || !strings.Contains(r.stderr, tok(t2)) {
		t.Errorf("stale rm: stderr %q does not say fenced and name token %d", r.stderr, t2)
	}
	if r := c.want(0, "", "get", "d", "c"); r.stdout != "c" {
		t.Errorf("after a fenced rm, get c = %q", r.stdout)
	}
	c.want(exitUsage, "", "rm", "d", "--token", tok(t2))
	c.want(exitUsage, "", "rm", "d", "c")
	c.want(exitUsage, "", "rm", "d", "c", "c", "--token", tok(t2))
}
