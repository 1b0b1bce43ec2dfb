package wire

import (
	"strings"
	"time"
)

// algorithmV4 is the only signing algorithm this package verifies.
const algorithmV4 = "AWS4-HMAC-SHA256"

// maxAuthLen bounds the Authorization header and each presigned query
// parameter this package parses. Real ones are a few hundred bytes.
const maxAuthLen = 8 << 10

// amzDateLayout is the layout of X-Amz-Date.
const amzDateLayout = "20060102T150405Z"

// Scope is the credential scope of a signature: the day, region and service
// it was made for ("20130524/us-east-1/s3/aws4_request").
type Scope struct {
	Date    string // yyyymmdd
	Region  string
	Service string
}

// String is the scope as it appears in a credential and a string to sign.
func (s Scope) String() string {
	return s.Date + "/" + s.Region + "/" + s.Service + "/aws4_request"
}

// Credential names the key a request was signed with and its scope.
type Credential struct {
	AccessKey string
	Scope     Scope
}

// Authorization is a parsed SigV4 Authorization header.
type Authorization struct {
	Credential    Credential
	SignedHeaders []string // lower case, sorted, as the client sent them
	Signature     string   // 64 lower-case hex digits
}

// ParseAuthorization parses a SigV4 Authorization header:
//
//	AWS4-HMAC-SHA256 Credential=AKID/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=<64 hex>
//
// It checks the form only; Verifier.Verify checks the signature. Anything
// else is refused with an *Error (AuthorizationHeaderMalformed, or
// InvalidRequest for another signature version) naming what was wrong.
func ParseAuthorization(header string) (Authorization, error) {
	if len(header) > maxAuthLen {
		return Authorization{}, malformed("the Authorization header is %d bytes, more than %d", len(header), maxAuthLen)
	}
	alg, rest, _ := strings.Cut(header, " ")
	if alg != algorithmV4 {
		if strings.HasPrefix(header, "AWS ") {
			return Authorization{}, errorf(CodeInvalidRequest, "signature version 2 is not supported; use %s", algorithmV4)
		}
		return Authorization{}, malformed("the Authorization header's algorithm %q is not %s", clip(alg), algorithmV4)
	}
	var a Authorization
	var seen [3]bool
	for _, part := range strings.Split(rest, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Authorization{}, malformed("the Authorization header's part %q is not NAME=VALUE", clip(part))
		}
		var err error
		switch name {
		case "Credential":
			err = once(&seen[0], name)
			if err == nil {
				a.Credential, err = parseCredential(value, "the Authorization header's Credential")
			}
		case "SignedHeaders":
			err = once(&seen[1], name)
			if err == nil {
				a.SignedHeaders, err = parseSignedHeaders(value, "the Authorization header's SignedHeaders")
			}
		case "Signature":
			err = once(&seen[2], name)
			if err == nil {
				a.Signature, err = parseSignature(value, "the Authorization header's Signature")
			}
		default:
			err = malformed("the Authorization header has an unknown part %q", clip(name))
		}
		if err != nil {
			return Authorization{}, err
		}
	}
	for i, name := range []string{"Credential", "SignedHeaders", "Signature"} {
		if !seen[i] {
			return Authorization{}, malformed("the Authorization header has no %s", name)
		}
	}
	return a, nil
}

func once(seen *bool, name string) error {
	if *seen {
		return malformed("the Authorization header has %s twice", name)
	}
	*seen = true
	return nil
}

func malformed(format string, args ...any) *Error {
	return errorf(CodeAuthorizationHeaderMalformed, format, args...)
}

// parseCredential parses AKID/yyyymmdd/region/service/aws4_request. where
// names the field in errors.
func parseCredential(s, where string) (Credential, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 5 {
		return Credential{}, malformed("%s %q is not ACCESS_KEY/DATE/REGION/SERVICE/aws4_request", where, clip(s))
	}
	c := Credential{AccessKey: parts[0], Scope: Scope{Date: parts[1], Region: parts[2], Service: parts[3]}}
	switch {
	case !printable(c.AccessKey):
		return Credential{}, malformed("%s's access key is empty or has a space or a character outside printable ASCII", where)
	case !validDate(c.Scope.Date):
		return Credential{}, malformed("%s's date %q is not a date written yyyymmdd", where, clip(c.Scope.Date))
	case !printable(c.Scope.Region):
		return Credential{}, malformed("%s's region %q is empty or has a space or a character outside printable ASCII", where, clip(c.Scope.Region))
	case !token(c.Scope.Service):
		return Credential{}, malformed("%s's service %q is empty or has a character other than a-z, 0-9 and -", where, clip(c.Scope.Service))
	case parts[4] != "aws4_request":
		return Credential{}, malformed("%s ends in %q, not aws4_request", where, clip(parts[4]))
	}
	return c, nil
}

func validDate(s string) bool {
	if len(s) != 8 {
		return false
	}
	_, err := time.Parse("20060102", s)
	return err == nil
}

// token reports whether s is a non-empty run of a-z, 0-9 and '-', the
// characters of AWS region and service names.
func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// printable reports whether s is a non-empty run of printable ASCII other
// than space.
func printable(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// parseSignedHeaders parses "host;x-amz-date": lower-case header names,
// strictly ascending (as SigV4 requires), host among them.
func parseSignedHeaders(s, where string) ([]string, error) {
	names := strings.Split(s, ";")
	hasHost := false
	for i, n := range names {
		if !headerName(n) {
			return nil, malformed("%s %q has %q, which is not a lower-case header name", where, clip(s), clip(n))
		}
		if i > 0 && names[i-1] >= n {
			return nil, malformed("%s %q is not sorted without repeats", where, clip(s))
		}
		hasHost = hasHost || n == "host"
	}
	if !hasHost {
		return nil, malformed("%s %q does not include host", where, clip(s))
	}
	return names, nil
}

// headerName reports whether s is a non-empty lower-case HTTP header name.
func headerName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// parseSignature checks that s is 64 lower-case hex digits.
func parseSignature(s, where string) (string, error) {
	if !lowerHex(s, 64) {
		return "", malformed("%s %q is not 64 lower-case hex digits", where, clip(s))
	}
	return s, nil
}

func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// parseAmzDate parses an X-Amz-Date value (20130524T000000Z).
func parseAmzDate(s, where string) (time.Time, error) {
	t, err := time.Parse(amzDateLayout, s)
	if err != nil || len(s) != len(amzDateLayout) {
		return time.Time{}, errorf(CodeAccessDenied, "%s %q is not a time written yyyymmddThhmmssZ", where, clip(s))
	}
	return t, nil
}

// clip shortens s for an error message so that a huge input does not make
// a huge error.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
