package objstore

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fencedstore/fence/rules"
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
	systemDir    = "/" + rules.Reserved + "/"
	versionDir   = systemDir + "v/"
	manifestName = "manifest.json"
	tokenDigits  = rules.TokenDigits
	// MaxKeyLen is the longest key or domain accepted, in bytes.
	MaxKeyLen = rules.MaxKeyLen
	// MaxToken is the largest token accepted.
	MaxToken = rules.MaxToken
)

// ManifestKey returns the object key of domain's manifest.
func ManifestKey(domain string) string { return domain + systemDir + manifestName }

// SystemKey returns the object key of one of fence's own objects for
// domain, such as the bucket-lease record ("lease.json").
func SystemKey(domain, name string) string { return rules.SystemKey(domain, name) }

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

// ValidateKey reports whether key can name an object in a domain
// (rules.ValidateKey).
func ValidateKey(key string) error { return rules.ValidateKey(key) }

// ValidateDomain reports whether domain can name an ownership domain
// (rules.ValidateDomain).
func ValidateDomain(domain string) error { return rules.ValidateDomain(domain) }

// ValidateToken reports whether token is in the accepted range
// 1..MaxToken (rules.ValidateToken).
func ValidateToken(token uint64) error { return rules.ValidateToken(token) }
