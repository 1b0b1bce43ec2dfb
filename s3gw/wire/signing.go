package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// SigV4 as S3 defines it: the canonical request, the string to sign and the
// signing key. The canonical request is built from exactly the headers the
// client lists in SignedHeaders. aws-sdk-go-v2's signer is not used here
// because it chooses the headers itself (it never signs user-agent or
// expect, which a client may sign); the tests check this code against it,
// against minio-go and against AWS's published examples.

// signingKey derives the SigV4 signing key of secret for scope.
func signingKey(secret string, scope Scope) []byte {
	k := hmacSHA256([]byte("AWS4"+secret), scope.Date)
	k = hmacSHA256(k, scope.Region)
	k = hmacSHA256(k, scope.Service)
	return hmacSHA256(k, "aws4_request")
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// signature is the hex HMAC-SHA256 of stringToSign under key.
func signature(key []byte, stringToSign string) string {
	return hex.EncodeToString(hmacSHA256(key, stringToSign))
}

// stringToSign is SigV4's string to sign for a request.
func stringToSign(t time.Time, scope Scope, canonicalRequest string) string {
	return algorithmV4 + "\n" + t.UTC().Format(amzDateLayout) + "\n" + scope.String() + "\n" + sha256Hex([]byte(canonicalRequest))
}

// canonicalRequest builds SigV4's canonical request for r, over the headers
// named in signed and with payloadHash as its last line. query is r's query
// without X-Amz-Signature for a presigned request. A header named in
// signed but absent from r is refused.
func canonicalRequest(r *http.Request, query url.Values, signed []string, payloadHash string) (string, error) {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte('\n')
	path := r.URL.Path
	if path == "" {
		path = "/"
	}
	b.WriteString(uriEncode(path, false))
	b.WriteByte('\n')
	b.WriteString(canonicalQuery(query))
	b.WriteByte('\n')
	for _, name := range signed {
		value, ok := headerValue(r, name)
		if !ok {
			return "", errorf(CodeSignatureDoesNotMatch, "the request signs header %q but does not send it", name)
		}
		b.WriteString(name)
		b.WriteByte(':')
		b.WriteString(value)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Join(signed, ";"))
	b.WriteByte('\n')
	b.WriteString(payloadHash)
	return b.String(), nil
}

// headerValue is the canonical value of r's header name (lower case): its
// values trimmed, inner runs of spaces made one, joined by commas.
func headerValue(r *http.Request, name string) (string, bool) {
	switch name {
	case "host":
		return r.Host, r.Host != ""
	case "content-length":
		if v := r.Header.Values("Content-Length"); len(v) > 0 {
			break
		}
		if r.ContentLength < 0 {
			return "", false
		}
		return strconv.FormatInt(r.ContentLength, 10), true
	}
	values := r.Header.Values(name)
	if len(values) == 0 {
		return "", false
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(out, ","), true
}

// canonicalQuery is SigV4's canonical query string: every name and value
// URI-encoded, sorted by name and then value.
func canonicalQuery(q url.Values) string {
	type pair struct{ k, v string }
	pairs := make([]pair, 0, len(q))
	for k, vs := range q {
		ek := uriEncode(k, true)
		for _, v := range vs {
			pairs = append(pairs, pair{ek, uriEncode(v, true)})
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].k != pairs[j].k {
			return pairs[i].k < pairs[j].k
		}
		return pairs[i].v < pairs[j].v
	})
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.k)
		b.WriteByte('=')
		b.WriteString(p.v)
	}
	return b.String()
}

// uriEncode is SigV4's URI encoding: every byte but A-Z, a-z, 0-9, '-',
// '.', '_' and '~' becomes %XX in upper case; '/' too when slash is true
// (query strings), not in paths.
func uriEncode(s string, slash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '/' && !slash {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}
