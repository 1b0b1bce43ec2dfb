package config

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseURL checks that ParseURL never panics, that what it accepts
// round-trips through Location.String and carries no credentials, that
// Redact removes the user info (also a password with '/', '?' or '=') and
// is idempotent, and that ParseURL's errors quote the redacted URL, never
// the raw one.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"file://./fence-data", "file:///tmp/x", "mem://", "mem://a",
		"s3://k:s@bucket/p", "ftp://u:p@h/x?token=t", "", "file:",
		"://", "file://@/x", "x://a@b@c/d?e=f&secret=g#h",
		"s3://bucket/prefix?endpoint=http://127.0.0.1:9000&region=us-east-1&path_style=true",
		"s3://bucket?sse=aws:kms&kms_key_id=arn:aws:kms:eu-west-1:1:key/k",
		"minio://bucket/p?endpoint=https://minio.example.com&region=r&sse=AES256",
		"dynamodb://fence-leases?endpoint=http://127.0.0.1:8000&region=eu-west-1",
		"s3://AKIA:se/cr?et=@bucket", "s3://bucket?endpoint=http%3A%2F%2Fu%3Ap%40h",
		"minio://bucket?endpoint=http://admin:password@h:9000", "s3://bucket?secret_access_key=x",
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
		if pw := passwordOf(raw); pw != "" && strings.Contains(r, pw) {
			t.Fatalf("Redact(%q) = %q keeps the password %q", raw, r, pw)
		}
		loc, err := ParseURL(raw)
		if err != nil {
			// Errors quote the redacted URL, never the raw one.
			if userinfoOf(raw) != "" && strings.Contains(err.Error(), strconv.Quote(raw)) {
				t.Fatalf("ParseURL(%q) error quotes the URL with its user info: %v", raw, err)
			}
			// (Unless quoting the redacted URL makes the password's
			// characters by itself: a NUL quoted is \x00, which with
			// the digits after it spells a password of zeros.)
			if pw := passwordOf(raw); pw != "" && strings.Contains(err.Error(), pw) && !strings.Contains(strconv.Quote(r), pw) {
				t.Fatalf("ParseURL(%q) error shows the password %q: %v", raw, pw, err)
			}
			return
		}
		if !KnownScheme(loc.Scheme) {
			t.Fatalf("ParseURL(%q) = scheme %q", raw, loc.Scheme)
		}
		if userinfoOf(loc.Endpoint) != "" || strings.Contains(loc.Endpoint, "@") {
			t.Fatalf("ParseURL(%q) accepted an endpoint with credentials: %+v", raw, loc)
		}
		if loc.Scheme != "file" && loc.Scheme != "mem" && userinfoOf(raw) != "" {
			t.Fatalf("ParseURL(%q) accepted a URL with user info: %+v", raw, loc)
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

// passwordOf returns the password of raw's user info when it is long
// enough, and absent from the rest of raw, for a leak to be told apart
// from a coincidence.
func passwordOf(raw string) string {
	ui := userinfoOf(raw)
	_, pw, ok := strings.Cut(ui, ":")
	if !ok || len(pw) < 6 {
		return ""
	}
	i := strings.Index(raw, ui)
	if strings.Contains(raw[:i], pw) || strings.Contains(raw[i+len(ui):], pw) {
		return ""
	}
	return pw
}
