package objstore

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Object layout. Everything fence writes for a domain lives under
// "<domain>/_fence/": the segment "_fence" is reserved, so no key and no
// other domain (nested or not) can collide with it.
//
//	<domain>/_fence/manifest.json                       the manifest
//	<domain>/_fence/lease.json                          bucket-lease record
//	<domain>/_fence/v/<key>@<20-digit token>-<suffix>   write-once versions
//
// Zero-padding the token makes lexical order equal token order.
const (
	reservedSegment = "_fence"
	systemDir       = "/" + reservedSegment + "/"
	versionDir      = systemDir + "v/"
	manifestName    = "manifest.json"
	tokenDigits     = 20
	// MaxKeyLen is the longest key or domain accepted, in bytes (S3's
	// limit on a whole object key).
	MaxKeyLen = 1024
	// MaxToken is the largest token accepted. It fits a signed 64-bit
	// integer so every language and database can hold it exactly.
	MaxToken = math.MaxInt64
)

// ManifestKey returns the object key of domain's manifest.
func ManifestKey(domain string) string { return domain + systemDir + manifestName }

// SystemKey returns the object key of one of fence's own objects for
// domain, such as the bucket-lease record ("lease.json").
func SystemKey(domain, name string) string { return domain + systemDir + name }

// VersionPrefix returns the prefix under which domain's versions live.
func VersionPrefix(domain string) string { return domain + versionDir }

// VersionKey returns the write-once object key of one version.
func VersionKey(domain, key string, token uint64, suffix string) string {
	return fmt.Sprintf("%s%s%s@%0*d-%s", domain, versionDir, key, tokenDigits, token, suffix)
}

// ParseVersionKey splits a version's object key into its parts. It
// rejects anything VersionKey could not have produced.
func ParseVersionKey(objectKey string) (domain, key string, token uint64, suffix string, err error) {
	bad := func(reason string) error {
		return &InvalidError{What: "version key", Value: objectKey, Reason: reason}
	}
	i := strings.Index(objectKey, versionDir)
	if i <= 0 {
		return "", "", 0, "", bad("no " + versionDir + " segment after a domain")
	}
	domain, rest := objectKey[:i], objectKey[i+len(versionDir):]
	at := strings.LastIndexByte(rest, '@')
	if at <= 0 {
		return "", "", 0, "", bad("no @<token>-<suffix> after the key")
	}
	key, tail := rest[:at], rest[at+1:]
	if len(tail) < tokenDigits+2 || tail[tokenDigits] != '-' {
		return "", "", 0, "", bad("token is not 20 digits followed by '-'")
	}
	digits, suffix := tail[:tokenDigits], tail[tokenDigits+1:]
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return "", "", 0, "", bad("token is not 20 digits")
		}
	}
	token, perr := strconv.ParseUint(digits, 10, 64)
	if perr != nil {
		return "", "", 0, "", bad("token out of range")
	}
	if err := validSuffix(suffix); err != "" {
		return "", "", 0, "", bad(err)
	}
	if err := ValidateDomain(domain); err != nil {
		return "", "", 0, "", err
	}
	if err := ValidateKey(key); err != nil {
		return "", "", 0, "", err
	}
	if err := ValidateToken(token); err != nil {
		return "", "", 0, "", err
	}
	return domain, key, token, suffix, nil
}

func validSuffix(s string) string {
	if s == "" || len(s) > 64 {
		return "suffix must be 1 to 64 characters"
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return "suffix has a character other than letters, digits, '-' and '_'"
		}
	}
	return ""
}

// ValidateKey reports whether key can name an object in a domain.
func ValidateKey(key string) error { return validatePath("key", key) }

// ValidateDomain reports whether domain can name an ownership domain.
func ValidateDomain(domain string) error { return validatePath("domain", domain) }

// ValidateToken reports whether token is in the accepted range
// 1..MaxToken. Token 0 means "no token" and is never valid for a write.
func ValidateToken(token uint64) error {
	if token == 0 {
		return &InvalidError{What: "token", Value: "0", Reason: "tokens start at 1; 0 means no lease was acquired"}
	}
	if token > MaxToken {
		return &InvalidError{What: "token", Value: strconv.FormatUint(token, 10), Reason: fmt.Sprintf("above the maximum %d", uint64(MaxToken))}
	}
	return nil
}

func validatePath(what, s string) error {
	bad := func(reason string) error { return &InvalidError{What: what, Value: s, Reason: reason} }
	switch {
	case s == "":
		return bad("empty")
	case len(s) > MaxKeyLen:
		return bad(fmt.Sprintf("%d bytes, over the limit of %d", len(s), MaxKeyLen))
	case !utf8.ValidString(s):
		return bad("not valid UTF-8")
	case s[0] == '/':
		return bad("starts with '/'")
	case s[len(s)-1] == '/':
		return bad("ends with '/'")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return bad(fmt.Sprintf("contains control character %U", r))
		}
	}
	for seg := range strings.SplitSeq(s, "/") {
		switch {
		case seg == "":
			return bad("contains an empty path segment (\"//\")")
		case seg == "." || seg == "..":
			return bad(fmt.Sprintf("contains a %q segment", seg))
		case strings.HasPrefix(seg, reservedSegment):
			return bad(fmt.Sprintf("segment %q: names starting with %q are reserved for fence's own objects", seg, reservedSegment))
		}
	}
	if what == "key" {
		if i := versionSuffixAt(s); i >= 0 {
			return bad(fmt.Sprintf("contains %q at byte %d, which looks like a version suffix (@ followed by 20 digits and '-')", s[i:i+tokenDigits+2], i))
		}
	}
	return nil
}

// versionSuffixAt returns the index of the first "@<20 digits>-" in s, or -1.
func versionSuffixAt(s string) int {
	for i := 0; i+tokenDigits+2 <= len(s); i++ {
		if s[i] != '@' {
			continue
		}
		ok := s[i+1+tokenDigits] == '-'
		for j := i + 1; ok && j <= i+tokenDigits; j++ {
			ok = s[j] >= '0' && s[j] <= '9'
		}
		if ok {
			return i
		}
	}
	return -1
}
