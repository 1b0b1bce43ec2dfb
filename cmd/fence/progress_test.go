package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Progress bars stay off when stderr is not a terminal: a large put and
// get print nothing on stderr.
func TestProgressSilentWithoutTTY(t *testing.T) {
	c := newCLI(t)
	big := filepath.Join(c.dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	t1 := tok(c.acquire("d"))
	for _, args := range [][]string{
		{"put", "d", "big", big, "--token", t1},
		{"put", "d", "big", "-", "--token", t1},
		{"get", "d", "big", "-o", filepath.Join(c.dir, "out")},
		{"get", "d", "big"},
	} {
		f, err := os.Open(big)
		if err != nil {
			t.Fatal(err)
		}
		r := c.runFrom(f, args...)
		f.Close()
		if r.code != 0 || r.stderr != "" {
			t.Errorf("fence %q: want exit 0 and nothing on stderr, got exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// On a terminal, a put or get of at least progressMin bytes, or of
// unknown size, draws a bar on stderr and erases it; a smaller one, or any with --quiet, draws
// nothing.
func TestProgressOnTerminal(t *testing.T) {
	dir := t.TempDir()
	store := "file://" + filepath.Join(dir, "store")
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("x"), progressMin), 0o644); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, bytes.Repeat([]byte("x"), progressMin-1), 0o644); err != nil {
		t.Fatal(err)
	}
	term := func(args ...string) (code int, stderr string) {
		var out, errb bytes.Buffer
		a := newApp(strings.NewReader(strings.Repeat("x", 3<<20)), &out, &errb)
		a.getenv = func(string) string { return "" }
		a.isTerminal = func(w io.Writer) bool { return w == io.Writer(&errb) }
		return a.run(t.Context(), append([]string{"--store", store}, args...)), errb.String()
	}
	if code, stderr := term("lease", "acquire", "d"); code != 0 {
		t.Fatalf("lease acquire: exit %d, %s", code, stderr)
	}
	for _, tt := range []struct {
		bar  bool
		args []string
	}{
		{true, []string{"put", "d", "big", big, "--token", "1"}},
		{true, []string{"put", "d", "stdin", "-", "--token", "1"}}, // unknown size
		{true, []string{"get", "d", "big", "-o", filepath.Join(dir, "out")}},
		{true, []string{"get", "d", "big"}}, // stdout is not the terminal
		{false, []string{"put", "d", "small", small, "--token", "1"}},
		{false, []string{"--quiet", "put", "d", "big", big, "--token", "1"}},
		{false, []string{"-q", "get", "d", "big", "-o", filepath.Join(dir, "out")}},
	} {
		code, stderr := term(tt.args...)
		if code != 0 {
			t.Errorf("fence %q: exit %d, stderr %q", tt.args, code, stderr)
		}
		switch {
		case !tt.bar && stderr != "":
			t.Errorf("fence %q on a terminal: stderr %q, want nothing", tt.args, stderr)
		case tt.bar && !strings.Contains(stderr, tt.args[0]+" "+tt.args[2]):
			t.Errorf("fence %q on a terminal: stderr %q, want a bar described %q", tt.args, stderr, tt.args[0]+" "+tt.args[2])
		case tt.bar && !strings.HasSuffix(stderr, "\r"):
			t.Errorf("fence %q on a terminal: the bar was not erased: %q", tt.args, stderr)
		}
	}
}
