package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInlineMax: a small value is kept in the manifest (no version file);
// --inline-max 0 and FENCE_INLINE_MAX=0 give it a version object of its
// own; a value over the limit always gets one; a bad limit is a usage
// error. Every value reads back.
func TestInlineMax(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d")
	versions := func(key string) int {
		t.Helper()
		files, err := filepath.Glob(filepath.Join(strings.TrimPrefix(c.store, "file://"), "d.d", "d._fence", "d.v", "f."+key+"%40*"))
		if err != nil {
			t.Fatal(err)
		}
		return len(files)
	}
	c.want(0, "small", "put", "d", "inline", "-", "--token", tok(t1))
	c.want(0, "small", "put", "d", "flag", "-", "--token", tok(t1), "--inline-max", "0")
	c.env = []string{"FENCE_INLINE_MAX=0"}
	c.want(0, "small", "put", "d", "env", "-", "--token", tok(t1))
	c.env = nil
	c.want(0, "larger than ten", "put", "d", "over", "-", "--token", tok(t1), "--inline-max", "10")
	for key, want := range map[string]int{"inline": 0, "flag": 1, "env": 1, "over": 1} {
		if n := versions(key); n != want {
			t.Errorf("%s: %d version files, want %d", key, n, want)
		}
	}
	for key, want := range map[string]string{"inline": "small", "flag": "small", "env": "small", "over": "larger than ten"} {
		if r := c.want(0, "", "get", "d", key); r.stdout != want {
			t.Errorf("get %s = %q, want %q", key, r.stdout, want)
		}
	}
	c.want(exitUsage, "x", "put", "d", "k", "-", "--token", tok(t1), "--inline-max", "-1")
}
