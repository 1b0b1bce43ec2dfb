package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// get -o creates FILE with mode 0666 less the umask, as cp or a shell
// redirection would (it used to be 0600), keeps an existing FILE's
// permission bits, and leaves no temporary file.
func TestGetOutputMode(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	c := newCLI(t)
	c.want(0, "bytes", "put", "d", "k", "-", "--token", tok(c.acquire("d")))
	out := filepath.Join(c.dir, "out")
	c.want(0, "", "get", "d", "k", "-o", out)
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("get -o with umask 027: mode %v (%v), want 0640", fi.Mode(), err)
	}
	if err := os.Chmod(out, 0o604); err != nil {
		t.Fatal(err)
	}
	c.want(0, "", "get", "d", "k", "-o", out)
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o604 {
		t.Fatalf("get -o over an existing 0604 file: mode %v (%v), want 0604", fi.Mode(), err)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "bytes" {
		t.Fatalf("get -o wrote %q (%v)", b, err)
	}
	if tmp := tempFiles(t, c.dir); len(tmp) != 0 {
		t.Fatalf("temporary files left behind: %q", tmp)
	}
}
