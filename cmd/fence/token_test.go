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
