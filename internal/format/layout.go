package format

import (
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
//	<domain>/_fence/floor.json                          floor marker
//	<domain>/_fence/v/<key>@<20-digit token>-<suffix>   write-once versions
//	<domain>/_fence/s/<token>-<attempt>-<sha256>.json   shards
//	<domain>/_fence/p/<token>-<attempt>-<sha256>.pack   packs (see pack.go)
//	<domain>/_fence/fenced/<max-by>-<token>-<id>.json   fenced-attempt records (fenced.go)
//
// Zero-padding the token makes lexical order equal token order.
const (
	// SystemDir is the segment between a domain and fence's own objects.
	SystemDir    = "/" + rules.Reserved + "/"
	versionDir   = SystemDir + "v/"
	shardDir     = SystemDir + "s/"
	manifestName = "manifest.json"
	floorName    = "floor.json"
	tokenDigits  = rules.TokenDigits
)

// ManifestKey returns the object key of domain's manifest.
func ManifestKey(domain string) string { return domain + SystemDir + manifestName }

// FloorKey returns the object key of domain's floor marker.
func FloorKey(domain string) string { return rules.SystemKey(domain, floorName) }

// VersionPrefix returns the prefix under which domain's versions live.
func VersionPrefix(domain string) string { return domain + versionDir }

// ShardPrefix returns the prefix under which domain's shards live.
func ShardPrefix(domain string) string { return domain + shardDir }

// VersionKeyLen returns len(VersionKey(domain, key, token, suffix)) for
// a suffix of suffixLen bytes, without building the key.
func VersionKeyLen(domain, key string, token uint64, suffixLen int) int {
	var num [20]byte
	digits := len(strconv.AppendUint(num[:0], token, 10))
	return len(domain) + len(versionDir) + len(key) + 1 + max(tokenDigits, digits) + 1 + suffixLen
}

// VersionKey returns the write-once object key of one version:
// "<domain>/_fence/v/<key>@<token, zero-padded to tokenDigits>-<suffix>".
// It is built in one allocation, without fmt: a commit calls it once
// for each key it puts (TestVersionKeyMatchesSprintf).
func VersionKey(domain, key string, token uint64, suffix string) string {
	var num [20]byte
	digits := strconv.AppendUint(num[:0], token, 10)
	var b strings.Builder
	b.Grow(VersionKeyLen(domain, key, token, len(suffix)))
	b.WriteString(domain)
	b.WriteString(versionDir)
	b.WriteString(key)
	b.WriteByte('@')
	for range tokenDigits - len(digits) {
		b.WriteByte('0')
	}
	b.Write(digits)
	b.WriteByte('-')
	b.WriteString(suffix)
	return b.String()
}

// ParseVersionKey splits a version's object key into its parts. It
// rejects anything VersionKey could not have produced.
func ParseVersionKey(objectKey string) (domain, key string, token uint64, suffix string, err error) {
	bad := func(reason string) error {
		return &rules.InvalidError{What: "version key", Value: objectKey, Reason: reason}
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
	if err := ValidSuffix(suffix); err != "" {
		return "", "", 0, "", bad(err)
	}
	if err := rules.ValidateDomain(domain); err != nil {
		return "", "", 0, "", err
	}
	if err := rules.ValidateKey(key); err != nil {
		return "", "", 0, "", err
	}
	if err := rules.ValidateToken(token); err != nil {
		return "", "", 0, "", err
	}
	return domain, key, token, suffix, nil
}

// ValidSuffix returns why s cannot be the suffix of an object name (a
// commit or attempt id), or "" when it can.
func ValidSuffix(s string) string {
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
