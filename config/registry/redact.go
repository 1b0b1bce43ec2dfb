package registry

import (
	"net/url"
	"strings"
)

// secretParams are substrings of query parameter names whose values Redact
// hides, and that config.ParseURL refuses as credentials.
var secretParams = []string{"secret", "pass", "token", "key", "credential", "signature", "sig", "auth", "access", "connection"}

// Redact returns raw with credentials removed, for messages and logs: the
// user:password part of the authority is dropped (also when the password
// holds '/', '?' or '=': then everything up to the last '@' goes), the
// values of query parameters whose names look secret (secret, password,
// token, key, ...) become REDACTED, and query values that are URLs with
// credentials lose them. It never fails; input that is not a URL is
// redacted as far as it looks like one.
func Redact(raw string) string {
	prefix, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		prefix, rest = raw[:i+3], raw[i+3:]
	}
	// The authority ends at the first '/', '?' or '#'. A password may hold
	// those characters, so when the authority has an '@', or a ':' with an
	// '@' anywhere after it, everything up to the last '@' is user info.
	first := rest[:authorityEnd(rest)]
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		colon := strings.IndexByte(first, ':')
		if strings.Contains(first, "@") || colon >= 0 && at > colon {
			rest = rest[at+1:]
		}
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
		name, value, hasValue := strings.Cut(p, "=")
		switch {
		case !hasValue:
		case LooksSecret(name):
			params[i] = name + "=REDACTED"
		case strings.Contains(value, "@") || strings.Contains(value, "%"):
			// A URL in a value (such as an endpoint) may carry
			// credentials, also percent-encoded.
			decoded, err := url.QueryUnescape(value)
			if err != nil {
				decoded = value
			}
			if r := Redact(decoded); r != decoded {
				params[i] = name + "=" + escapeValue(r)
			}
		}
	}
	return prefix + path + "?" + strings.Join(params, "&") + fragment
}

// authorityEnd returns the index of the first '/', '?' or '#' in s, or
// len(s).
func authorityEnd(s string) int {
	if end := strings.IndexAny(s, "/?#"); end >= 0 {
		return end
	}
	return len(s)
}

// LooksSecret reports whether a query parameter's name looks like a
// credential's (secret, password, token, key, ...): Redact hides its
// value, and config.ParseURL refuses it.
func LooksSecret(name string) bool {
	name = strings.ToLower(name)
	for _, s := range secretParams {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}
