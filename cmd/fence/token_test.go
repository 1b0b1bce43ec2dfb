package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
)

// FuzzParseToken: a token given on the command line is accepted exactly
// when it is a decimal number from 1 to objstore.MaxToken; anything else
// is a usage error (exit 2) that quotes the input and names its source.
func FuzzParseToken(f *testing.F) {
	for _, s := range []string{"1", "42", "0", "", "-1", "+1", "007", " 1", "1e3", "0x10", "18446744073709551615", "99999999999999999999", strconv.FormatUint(objstore.MaxToken, 10), strconv.FormatUint(objstore.MaxToken+1, 10)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := parseToken(s, "--token")
		v, perr := strconv.ParseUint(s, 10, 64)
		valid := perr == nil && v >= 1 && v <= objstore.MaxToken
		if err == nil {
			if !valid || tok != v {
				t.Fatalf("parseToken(%q) = %d, want an error", s, tok)
			}
			return
		}
		if valid {
			t.Fatalf("parseToken(%q) refused a valid token: %v", s, err)
		}
		if exitCode(err) != exitUsage {
			t.Fatalf("parseToken(%q): exit code %d, want %d", s, exitCode(err), exitUsage)
		}
		if msg := err.Error(); !strings.Contains(msg, "--token") || !strings.Contains(msg, strconv.Quote(s)) {
			t.Fatalf("parseToken(%q): error %q does not name the flag and quote the input", s, msg)
		}
	})
}

// A token the coordinator never issued for the domain is refused (exit 2)
// before anything is written, whatever its size; a token whose lease was
// taken over is fenced (exit 3); the real holder then still commits.
func TestPutTokenNeverIssued(t *testing.T) {
	c := newCLI(t)
	r := c.want(exitUsage, "x", "put", "d", "k", "-", "--token", "5")
	if !strings.Contains(r.stderr, "never issued a token") {
		t.Errorf("put before any lease: stderr %q does not say why", r.stderr)
	}
	a := c.acquire("d", "--holder", "A", "--ttl", "1s")
	c.want(0, "a", "put", "d", "k", "-", "--token", tok(a))
	for _, bad := range []uint64{a + 1, 1000, objstore.MaxToken} {
		r := c.want(exitUsage, "typo", "put", "d", "k", "-", "--token", tok(bad))
		if !strings.Contains(r.stderr, "never issued it") || !strings.Contains(r.stderr, tok(bad)) {
			t.Errorf("put with token %d: stderr %q does not name the token and the cause", bad, r.stderr)
		}
	}
	if got := c.want(0, "", "get", "d", "k").stdout; got != "a" {
		t.Fatalf("after refused puts, get = %q, want %q", got, "a")
	}
	c.want(0, "a2", "put", "d", "k", "-", "--token", tok(a))
	b := c.acquire("d", "--holder", "B", "--wait")
	c.want(exitFenced, "late", "put", "d", "k", "-", "--token", tok(a))
	c.want(0, "b", "put", "d", "k", "-", "--token", tok(b))
}
