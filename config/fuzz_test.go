package config

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseURL checks that ParseURL never panics, that what it accepts
// round-trips through Location.String, that Redact removes the user info
// and is idempotent, and that ParseURL's errors quote the redacted URL,
// never the raw one.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"file://./fence-data", "file:///tmp/x", "mem://", "mem://a",
		"s3://k:s@bucket/p", "ftp://u:p@h/x?token=t", "", "file:",
		"://", "file://@/x", "x://a@b@c/d?e=f&secret=g#h",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := Redact(raw)
		if u := userinfoOf(r); u != "" {
			t.Fatalf("Redact(%q) = %q keeps the user info %q", raw, r, u)
		}
		if Redact(r) != r {
			t.Fatalf("Redact is not idempotent on %q", raw)
		}
		loc, err := ParseURL(raw)
		if err != nil {
			// Errors quote the redacted URL, never the raw one.
			if userinfoOf(raw) != "" && strings.Contains(err.Error(), strconv.Quote(raw)) {
				t.Fatalf("ParseURL(%q) error quotes the URL with its user info: %v", raw, err)
			}
			return
		}
		if loc.Scheme != "file" && loc.Scheme != "mem" {
			t.Fatalf("ParseURL(%q) = scheme %q", raw, loc.Scheme)
		}
		again, err := ParseURL(loc.String())
		if err != nil || again != loc {
			t.Fatalf("ParseURL(%q) = %+v; reparsing %q gives %+v, %v", raw, loc, loc.String(), again, err)
		}
	})
}

// userinfoOf returns the user:password part of raw's authority, if any.
func userinfoOf(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		rest = raw
	}
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	if at := strings.LastIndexByte(rest, '@'); at > 0 {
		return rest[:at]
	}
	return ""
}
