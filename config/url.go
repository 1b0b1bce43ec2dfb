package config

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadURL: a store or coordinator URL was rejected before anything was
// opened. Its *URLError says why.
var ErrBadURL = errors.New("config: bad URL")

// URLError reports a URL that cannot be used. URL is already redacted.
type URLError struct {
	URL    string // redacted with Redact
	Reason string
}

func (e *URLError) Error() string { return fmt.Sprintf("config: URL %q: %s", e.URL, e.Reason) }

// Is makes errors.Is(err, ErrBadURL) true.
func (e *URLError) Is(target error) bool { return target == ErrBadURL }

// Supported lists the URL forms this build can open, for messages.
const Supported = "file://PATH, mem://[NAME]"

// planned are schemes that a later release will accept; naming them in
// the error saves a user from hunting for a typo.
var planned = map[string]string{
	"s3":       "S3 buckets",
	"minio":    "MinIO buckets",
	"dynamodb": "DynamoDB lease tables",
}

// Location is a parsed store or coordinator URL.
type Location struct {
	// Scheme is "file" or "mem", lower case.
	Scheme string
	// Path is the directory of a file URL, taken literally (relative to
	// the working directory unless it starts with '/'), or the name of a
	// mem URL ("" for a fresh, unshared store).
	Path string
}

// String returns the URL that parses back to l.
func (l Location) String() string { return l.Scheme + "://" + l.Path }

// ParseURL parses a store or coordinator URL. It checks form only and
// touches nothing. Errors match ErrBadURL and never contain the URL's
// user:password part.
func ParseURL(raw string) (Location, error) {
	bad := func(format string, args ...any) (Location, error) {
		return Location{}, &URLError{URL: Redact(raw), Reason: fmt.Sprintf(format, args...)}
	}
	if raw == "" {
		return bad("empty; supported: %s", Supported)
	}
	i := strings.Index(raw, "://")
	if i < 0 {
		if strings.HasPrefix(raw, "file:") {
			return bad("a file URL is file://PATH, for example file://./fence-data or file:///var/lib/fence")
		}
		return bad("no scheme; supported: %s (for a local directory write file://%s)", Supported, Redact(raw))
	}
	scheme := strings.ToLower(raw[:i])
	if !validScheme(scheme) {
		return bad("malformed scheme %q; supported: %s", raw[:i], Supported)
	}
	rest := raw[i+3:]
	switch scheme {
	case "file":
		switch {
		case rest == "":
			return bad("no directory; write file://./DIR for a relative one or file:///DIR for an absolute one")
		case strings.ContainsAny(rest, "?#"):
			return bad("file URLs take no query or fragment ('?' or '#')")
		case strings.ContainsRune(rest, 0):
			return bad("path contains a NUL byte")
		}
		first, _, _ := strings.Cut(rest, "/")
		if strings.Contains(first, "@") {
			return bad("file URLs take no user or host; write file://./DIR or file:///DIR")
		}
		return Location{Scheme: "file", Path: rest}, nil
	case "mem":
		name := strings.TrimSuffix(rest, "/")
		if len(name) > 64 {
			return bad("mem store name is over 64 bytes")
		}
		for _, c := range []byte(name) {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
				return bad("mem store name may hold only letters, digits, '-', '_' and '.'")
			}
		}
		return Location{Scheme: "mem", Path: name}, nil
	}
	if what, ok := planned[scheme]; ok {
		return bad("%s:// URLs (%s) are not supported yet; supported: %s", scheme, what, Supported)
	}
	return bad("unsupported scheme %q; supported: %s", scheme, Supported)
}

func validScheme(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// secretParams are substrings of query parameter names whose values Redact
// hides.
var secretParams = []string{"secret", "password", "passwd", "token", "key", "credential", "signature", "sig", "auth"}

// Redact returns raw with credentials removed, for messages and logs: the
// user:password part of the authority is dropped, and the values of query
// parameters whose names look secret (secret, password, token, key, ...)
// become REDACTED. It never fails; input that is not a URL is redacted as
// far as it looks like one.
func Redact(raw string) string {
	prefix, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		prefix, rest = raw[:i+3], raw[i+3:]
	}
	// The authority ends at the first '/', '?' or '#'.
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
		rest = rest[at+1:]
	}
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return prefix + rest
	}
	path, query := rest[:q], rest[q+1:]
	fragment := ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, fragment = query[:h], query[h:]
	}
	params := strings.Split(query, "&")
	for i, p := range params {
		name, _, hasValue := strings.Cut(p, "=")
		if hasValue && looksSecret(name) {
			params[i] = name + "=REDACTED"
		}
	}
	return prefix + path + "?" + strings.Join(params, "&") + fragment
}

func looksSecret(name string) bool {
	name = strings.ToLower(name)
	for _, s := range secretParams {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}
