package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Several KEY FILE pairs, or a directory, are one commit: one manifest
// seq, all keys or (when fenced) none.
func TestPutMany(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d")
	a, b := c.file("a.csv", "a"), c.file("b.csv", "b")
	r := c.want(0, "", "--json", "put", "d", "x/a.csv", a, "x/b.csv", b, "--token", tok(t1))
	var res struct{ Seq uint64 }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c.dir, "report")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.file("report/sub/c.csv", "c")
	r = c.want(0, "", "--json", "put", "d", "--dir", dir+":x", "--delete", "--token", tok(t1))
	var res2 struct{ Seq uint64 }
	if err := json.Unmarshal([]byte(r.stdout), &res2); err != nil {
		t.Fatal(err)
	}
	if res2.Seq != res.Seq+1 {
		t.Fatalf("the directory's commit is seq %d after %d: want exactly one commit", res2.Seq, res.Seq)
	}
	ls := c.want(0, "", "ls", "d").stdout
	if !strings.Contains(ls, "x/sub/c.csv") || strings.Contains(ls, "x/a.csv") || strings.Contains(ls, "x/b.csv") {
		t.Fatalf("after --dir --delete, ls:\n%s", ls)
	}
	// Fenced: nothing of the set is visible.
	c.want(0, "", "lease", "break", "d")
	c.want(exitFenced, "", "put", "d", "late/1", a, "late/2", b, "--token", tok(t1))
	if ls := c.want(0, "", "ls", "d").stdout; strings.Contains(ls, "late/") {
		t.Fatalf("a fenced set is visible:\n%s", ls)
	}
	c.want(exitUsage, "", "put", "d", "k1", "-", "k2", "-", "--token", tok(t1))
	c.want(exitUsage, "", "put", "d", "k1", a, "k2", "--token", tok(t1))
}
