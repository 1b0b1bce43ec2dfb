package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stage prints receipts and publishes nothing; commit publishes the
// receipts of several files, a directory and standard input in one
// commit.
func TestStageThenCommit(t *testing.T) {
	c := newCLI(t)
	t1 := tok(c.acquire("d"))
	one := c.want(0, "", "stage", "d", "one", c.file("one.txt", "first"), "--token", t1).stdout
	two := c.want(0, "second", "stage", "d", "two", "-", "--token", t1).stdout
	if err := os.MkdirAll(filepath.Join(c.dir, "out", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.file("out/a", "A")
	c.file("out/sub/b", "B")
	dir := c.want(0, "", "stage", "d", "--dir", filepath.Join(c.dir, "out")+":part", "--token", t1).stdout
	if n := strings.Count(dir, "\n"); n != 2 {
		t.Fatalf("stage --dir printed %d lines, want 2:\n%s", n, dir)
	}
	for _, line := range strings.Split(strings.TrimSpace(one+two+dir), "\n") {
		var r struct{ Format, Key, Object string }
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Format != "fence-receipt/1" || !strings.Contains(r.Object, "/_fence/v/"+r.Key+"@") {
			t.Fatalf("stage printed %q (%v), want a receipt", line, err)
		}
	}
	c.want(exitError, "", "get", "d", "one")
	if out := c.want(0, "", "ls", "d").stdout; strings.Contains(out, "part/") {
		t.Fatalf("ls before the commit shows staged values:\n%s", out)
	}

	receipts := filepath.Join(c.dir, "receipts")
	if err := os.MkdirAll(receipts, 0o755); err != nil {
		t.Fatal(err)
	}
	c.file("receipts/w0.jsonl", dir+"\n")
	r := c.want(0, two, "--json", "commit", "d", "--token", t1, "--receipts", c.file("one.jsonl", one), "--receipts", receipts, "--receipts", "-")
	var res struct{ Versions []struct{ Key string } }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || len(res.Versions) != 4 {
		t.Fatalf("commit --json printed %q (%v), want 4 versions", r.stdout, err)
	}
	for key, want := range map[string]string{"one": "first", "two": "second", "part/a": "A", "part/sub/b": "B"} {
		if got := c.want(0, "", "get", "d", key).stdout; got != want {
			t.Errorf("get %s: %q, want %q", key, got, want)
		}
	}
}

// A stale worker's stage is refused at once (3); receipts staged before
// a takeover are refused with the stale commit (3), nothing published.
func TestStageCommitFenced(t *testing.T) {
	c := newCLI(t)
	t1 := tok(c.acquire("d"))
	receipt := c.want(0, "late", "stage", "d", "k", "-", "--token", t1).stdout
	c.want(0, "", "lease", "break", "d")
	c.want(exitFenced, "x", "stage", "d", "k2", "-", "--token", t1)
	r := c.want(exitFenced, receipt, "commit", "d", "--token", t1, "--receipts", "-")
	if !strings.Contains(r.stderr, "fenced") {
		t.Errorf("stale commit: stderr %q does not say fenced", r.stderr)
	}
	c.want(exitError, "", "get", "d", "k")
}

// Bad receipts: a line that is not a receipt is a usage error naming
// the file and line; a receipt of another domain is refused (1), naming
// it; commit without --receipts, or stage without FILE, is a usage
// error.
func TestCommitBadReceipts(t *testing.T) {
	c := newCLI(t)
	t1 := tok(c.acquire("d"))
	c.acquire("other")
	receipt := c.want(0, "v", "stage", "d", "k", "-", "--token", t1).stdout
	bad := c.file("bad.jsonl", receipt+"\nnot json\n")
	r := c.want(exitUsage, "", "commit", "d", "--token", t1, "--receipts", bad)
	if !strings.Contains(r.stderr, "bad.jsonl:3") {
		t.Errorf("stderr %q does not name bad.jsonl:3", r.stderr)
	}
	r = c.want(exitError, receipt, "commit", "other", "--token", t1, "--receipts", "-")
	if !strings.Contains(r.stderr, `staged in domain "d"`) || !strings.Contains(r.stderr, "/_fence/v/k@") {
		t.Errorf("receipt of another domain: stderr %q", r.stderr)
	}
	c.want(exitUsage, "", "commit", "d", "--token", t1)
	c.want(exitUsage, "", "stage", "d", "k", "--token", t1)
	c.want(exitError, "", "get", "d", "k")
}
