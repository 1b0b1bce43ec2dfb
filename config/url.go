package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/fencedstore/fence/config/registry"
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

// Supported lists the store URL forms, for messages and help.
const Supported = "file://PATH, mem://[NAME], s3://BUCKET[/PREFIX][?endpoint=URL&region=R&path_style=true], minio://BUCKET[/PREFIX]?endpoint=URL"

// SupportedCoordinators lists the coordinator URL forms, for messages
// and help.
const SupportedCoordinators = "dynamodb://TABLE[?endpoint=URL&region=R], or any store URL (lease records kept there)"

// builtinStores are the store schemes config handles itself.
const builtinStores = "file://, mem://, s3://, minio://"

// Location is a parsed store or coordinator URL (registry.Location).
type Location = registry.Location

// Query parameters each scheme takes, in the order messages list them.
var schemeParams = map[string][]string{
	"s3":       {"endpoint", "region", "path_style", "sse", "kms_key_id"},
	"minio":    {"endpoint", "region", "sse", "kms_key_id"},
	"dynamodb": {"endpoint", "region"},
}

// credentialsHelp says where credentials come from instead of URLs.
const credentialsHelp = "fence takes credentials only from the standard AWS chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, " +
	"AWS_PROFILE and the shared credentials file, or an instance or task role), never from URLs"

// ParseURL parses a store or coordinator URL. It checks form only and
// touches nothing. Errors match ErrBadURL and never contain the URL's
// user:password part or the value of a credential-looking parameter: a
// URL that carries credentials is refused.
func ParseURL(raw string) (Location, error) {
	bad := func(format string, args ...any) (Location, error) {
		return Location{}, &URLError{URL: Redact(raw), Reason: fmt.Sprintf(format, args...)}
	}
	if raw == "" {
		return bad("empty; supported: %s", supportedSchemes())
	}
	i := strings.Index(raw, "://")
	if i < 0 {
		if strings.HasPrefix(raw, "file:") {
			return bad("a file URL is file://PATH, for example file://./fence-data or file:///var/lib/fence")
		}
		return bad("no scheme; supported: %s (for a local directory write file://%s)", supportedSchemes(), Redact(raw))
	}
	scheme := strings.ToLower(raw[:i])
	if !registry.ValidScheme(scheme) {
		return bad("malformed scheme %q; supported: %s", raw[:i], supportedSchemes())
	}
	if reason := notLinked(scheme); reason != "" {
		return bad("%s", reason)
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
	case "s3", "minio", "dynamodb":
		loc, reason := parseRemote(scheme, rest)
		if reason != "" {
			return bad("%s", reason)
		}
		return loc, nil
	}
	if _, ok := lookup(scheme); ok {
		loc, reason := parseRemote(scheme, rest)
		if reason != "" {
			return bad("%s", reason)
		}
		return loc, nil
	}
	return bad("unsupported scheme %q; supported: %s", scheme, supportedSchemes())
}

// parseRemote parses what follows "s3://", "minio://", "dynamodb://" or
// a registered scheme's "NAME://".
// It returns a reason instead of an error, which ParseURL wraps.
func parseRemote(scheme, rest string) (Location, string) {
	loc := Location{Scheme: scheme}
	sc, registered := lookup(scheme)
	first := rest // the authority: up to the first '/', '?' or '#'
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		first = rest[:end]
	}
	switch {
	case strings.Contains(first, "@"), strings.Contains(first, ":") && strings.Contains(rest, "@"):
		return loc, "credentials in URLs are not accepted: " + credentialsHelpOf(scheme)
	case strings.Contains(first, ":") && scheme == "dynamodb":
		return loc, "a table name has no ':'; the server goes in the endpoint parameter: dynamodb://TABLE?endpoint=http://HOST:PORT"
	case strings.Contains(first, ":") && registered:
		return loc, fmt.Sprintf("a %s name has no ':'; the server goes in the endpoint parameter: %s", kindOf(scheme), sc.Form)
	case strings.Contains(first, ":"):
		return loc, fmt.Sprintf("a bucket name has no ':'; the server goes in the endpoint parameter: %s://BUCKET[/PREFIX]?endpoint=http://HOST:PORT", scheme)
	case strings.Contains(rest, "#"):
		return loc, fmt.Sprintf("%s:// URLs take no fragment ('#')", scheme)
	}
	hostPath, rawQuery, hasQuery := strings.Cut(rest, "?")
	name, path, _ := strings.Cut(hostPath, "/")
	if scheme == "dynamodb" {
		if reason := checkTable(name); reason != "" {
			return loc, reason
		}
		if strings.Trim(path, "/") != "" {
			return loc, "a dynamodb URL is dynamodb://TABLE[?endpoint=URL&region=R], with no path after the table"
		}
		loc.Table = name
	} else {
		check := checkBucket
		if sc.CheckBucket != nil {
			check = sc.CheckBucket
		}
		if reason := check(name); reason != "" {
			return loc, reason
		}
		prefix, reason := checkPrefix(path)
		if reason != "" {
			return loc, reason
		}
		loc.Bucket, loc.Prefix = name, prefix
	}
	if hasQuery {
		if reason := parseQuery(&loc, rawQuery); reason != "" {
			return loc, reason
		}
	}
	switch {
	case scheme == "minio" && loc.Endpoint == "":
		return loc, "a minio URL needs the server: minio://BUCKET[/PREFIX]?endpoint=http://HOST:PORT (https:// for TLS)"
	case loc.KMSKeyID != "" && loc.SSE != "aws:kms":
		return loc, "kms_key_id needs sse=aws:kms"
	}
	if sc.Validate != nil {
		return loc, sc.Validate(loc)
	}
	return loc, ""
}

// parseQuery sets loc's fields from rawQuery, refusing unknown, repeated,
// empty and credential-looking parameters.
func parseQuery(loc *Location, rawQuery string) string {
	allowed := schemeParams[loc.Scheme]
	sc, registered := lookup(loc.Scheme)
	if registered {
		allowed = sc.Params
	}
	seen := map[string]bool{}
	for _, p := range strings.Split(rawQuery, "&") {
		if p == "" {
			return "empty query parameter (a stray '&' or '?')"
		}
		name, rawValue, hasValue := strings.Cut(p, "=")
		known := slices.Contains(allowed, name)
		switch {
		case !known && slices.Contains(schemeParams["s3"], name):
			return fmt.Sprintf("query parameter %q is not one of %s:// URLs, which take %s", name, loc.Scheme, strings.Join(allowed, ", "))
		case !known && registry.LooksSecret(name):
			return fmt.Sprintf("query parameter %q looks like a credential; %s", name, credentialsHelpOf(loc.Scheme))
		case !known:
			return fmt.Sprintf("unknown query parameter %q; %s:// URLs take %s", name, loc.Scheme, strings.Join(allowed, ", "))
		case seen[name]:
			return fmt.Sprintf("query parameter %q given twice", name)
		case !hasValue || rawValue == "":
			return fmt.Sprintf("query parameter %q has no value", name)
		}
		seen[name] = true
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			return fmt.Sprintf("query parameter %q: bad percent-encoding", name)
		}
		if strings.ContainsFunc(value, isControl) {
			return fmt.Sprintf("query parameter %q contains control characters", name)
		}
		switch name {
		case "endpoint":
			if strings.Contains(value, "@") {
				return "endpoint: credentials in URLs are not accepted: " + credentialsHelpOf(loc.Scheme)
			}
			check := checkEndpoint
			if sc.CheckEndpoint != nil {
				check = sc.CheckEndpoint
			}
			if reason := check(value); reason != "" {
				return reason
			}
			loc.Endpoint = value
		case "region":
			if reason := checkRegion(value); reason != "" {
				return reason
			}
			loc.Region = value
		case "path_style":
			b, err := strconv.ParseBool(value)
			if err != nil {
				return fmt.Sprintf("path_style=%q: want true or false", value)
			}
			loc.PathStyle = b
		case "sse":
			if value != "AES256" && value != "aws:kms" {
				return fmt.Sprintf("sse=%q: want AES256 (SSE-S3) or aws:kms (SSE-KMS)", value)
			}
			loc.SSE = value
		case "account":
			// The scheme's Validate checks it.
			loc.Account = value
		case "kms_key_id":
			if strings.ContainsAny(value, " \t") || len(value) > 2048 {
				return "kms_key_id: want a KMS key id, alias or ARN"
			}
			loc.KMSKeyID = value
		}
	}
	return ""
}

// checkEndpoint accepts http(s)://HOST[:PORT][/]. parseQuery has
// refused a value with credentials ('@'); its messages redact a query
// such as a SAS token.
func checkEndpoint(value string) string {
	u, err := url.Parse(value)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return fmt.Sprintf("endpoint %q: want http://HOST:PORT or https://HOST[:PORT]", Redact(value))
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("endpoint %q: the scheme must be http or https", Redact(value))
	case u.Path != "" && u.Path != "/", u.RawQuery != "", u.Fragment != "", strings.HasSuffix(value, "?"):
		return fmt.Sprintf("endpoint %q: want only a scheme, host and port", Redact(value))
	}
	return ""
}

// checkRegion accepts region names such as us-east-1 (and the freer names
// S3-compatible servers allow): letters, digits, '-' and '_'.
func checkRegion(value string) string {
	if len(value) > 64 {
		return "region: over 64 characters"
	}
	for _, c := range []byte(value) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Sprintf("region %q: want a region name such as us-east-1", value)
		}
	}
	return ""
}

// checkBucket applies S3's bucket naming rules: 3 to 63 characters of
// lower-case letters, digits, '.' and '-', starting and ending with a
// letter or digit.
func checkBucket(name string) string {
	if name == "" {
		return "no bucket; write s3://BUCKET[/PREFIX] or minio://BUCKET[/PREFIX]?endpoint=..."
	}
	ok := len(name) >= 3 && len(name) <= 63 && !strings.Contains(name, "..") &&
		isAlnum(name[0]) && isAlnum(name[len(name)-1])
	for _, c := range []byte(name) {
		ok = ok && (isAlnum(c) || c == '.' || c == '-')
	}
	if !ok {
		return fmt.Sprintf("bucket %q: a bucket name is 3 to 63 lower-case letters, digits, '.' and '-', starting and ending with a letter or digit", name)
	}
	return ""
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// checkPrefix returns path without leading and trailing '/', refusing
// empty, "." and ".." segments and control characters.
func checkPrefix(path string) (string, string) {
	p := strings.Trim(path, "/")
	if p == "" {
		return "", ""
	}
	if len(p) > 512 {
		return "", "prefix: over 512 bytes"
	}
	if strings.ContainsFunc(p, isControl) {
		return "", "prefix contains control characters"
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", fmt.Sprintf("prefix %q: empty, '.' and '..' segments are not allowed", p)
		}
	}
	return p, ""
}

// checkTable applies DynamoDB's table naming rules.
func checkTable(name string) string {
	ok := len(name) >= 3 && len(name) <= 255
	for _, c := range []byte(name) {
		ok = ok && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.')
	}
	if !ok {
		return fmt.Sprintf("table %q: a table name is 3 to 255 letters, digits, '_', '-' and '.'", name)
	}
	return ""
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Redact returns raw with credentials removed, for messages and logs: the
// user:password part of the authority is dropped (also when the password
// holds '/', '?' or '=': then everything up to the last '@' goes), the
// values of query parameters whose names look secret (secret, password,
// token, key, ...) become REDACTED, and query values that are URLs with
// credentials lose them. It never fails; input that is not a URL is
// redacted as far as it looks like one (registry.Redact).
func Redact(raw string) string { return registry.Redact(raw) }
