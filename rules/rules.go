// Package rules holds the rules for names and tokens that every part of
// fence checks the same way: what a domain, a key and a token may be, the
// reserved "_fence" segment under which fence keeps its own objects, the
// default holder name, and the one error class for a rejected argument.
// objstore and coord both build on it, so neither imports the other.
package rules

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

const (
	// MaxKeyLen is the longest key or domain accepted, in bytes (S3's
	// limit on a whole object key).
	MaxKeyLen = 1024
	// MaxToken is the largest token accepted. It fits a signed 64-bit
	// integer so every language and database can hold it exactly.
	MaxToken = math.MaxInt64
	// Reserved is the path segment under which fence keeps a domain's own
	// objects ("<domain>/_fence/..."). No key or domain may have a
	// segment starting with it, so nothing can collide with them.
	Reserved = "_fence"
	// TokenDigits is the width of a token in object keys, zero-padded so
	// that lexical order is token order.
	TokenDigits = 20
)

// ErrInvalid: a domain, key, token, holder or option was rejected before
// anything was sent. Its *InvalidError names what was wrong. Users test
// for it as objstore.ErrInvalid, its one public name; coord.ErrInvalid is
// an alias kept for old code.
var ErrInvalid = errors.New("fence: invalid argument")

// InvalidError names an argument that was rejected before anything was
// sent.
type InvalidError struct {
	What   string // "key", "domain", "token", "holder", "ttl", "option", ...
	Value  string // the offending value, quoted in messages
	Reason string
	Err    error // the underlying validation error, if any
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("invalid %s %q: %s", e.What, e.Value, e.Reason)
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }
func (e *InvalidError) Unwrap() error        { return e.Err }

// SystemKey returns the object key of one of fence's own objects for
// domain, such as the manifest or the bucket-lease record.
func SystemKey(domain, name string) string { return domain + "/" + Reserved + "/" + name }

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

// DefaultHolder returns "<hostname>/<pid>", the holder name used when none
// is given.
func DefaultHolder() string { return defaultHolder() }

var defaultHolder = sync.OnceValue(func() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	h := fmt.Sprintf("%s/%d", host, os.Getpid())
	if !utf8.ValidString(h) || strings.ContainsFunc(h, isControl) {
		h = fmt.Sprintf("pid/%d", os.Getpid())
	}
	return h
})

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

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
		if isControl(r) {
			return bad(fmt.Sprintf("contains control character %U", r))
		}
	}
	for seg := range strings.SplitSeq(s, "/") {
		switch {
		case seg == "":
			return bad("contains an empty path segment (\"//\")")
		case seg == "." || seg == "..":
			return bad(fmt.Sprintf("contains a %q segment", seg))
		case strings.HasPrefix(seg, Reserved):
			return bad(fmt.Sprintf("segment %q: names starting with %q are reserved for fence's own objects", seg, Reserved))
		}
	}
	if what == "key" {
		if i := versionSuffixAt(s); i >= 0 {
			return bad(fmt.Sprintf("contains %q at byte %d, which looks like a version suffix (@ followed by 20 digits and '-')", s[i:i+TokenDigits+2], i))
		}
	}
	return nil
}

// versionSuffixAt returns the index of the first "@<20 digits>-" in s, or -1.
func versionSuffixAt(s string) int {
	for i := 0; i+TokenDigits+2 <= len(s); i++ {
		if s[i] != '@' {
			continue
		}
		ok := s[i+1+TokenDigits] == '-'
		for j := i + 1; ok && j <= i+TokenDigits; j++ {
			ok = s[j] >= '0' && s[j] <= '9'
		}
		if ok {
			return i
		}
	}
	return -1
}
