// Package wiretest changes S3 requests on the wire, for the tests of the
// gateway and of its wire layer: a request that a real client signed,
// with one byte of its body changed afterwards.
package wiretest

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"testing"
)

// Tamper is a RoundTripper that rewrites every request body with Change
// before Next sends it.
type Tamper struct {
	Next   http.RoundTripper
	Change func(body []byte) []byte
}

func (tp Tamper) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil || tp.Change == nil {
		return tp.Next.RoundTrip(r)
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	_ = r.Body.Close()
	b = tp.Change(bytes.Clone(b))
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return tp.Next.RoundTrip(r)
}

// FlipAfter changes the byte right after the first marker in a body to
// another byte of the same class (hex digit or base64 letter), so the
// framing still parses and only the value is wrong.
func FlipAfter(t testing.TB, marker string) func([]byte) []byte {
	return func(b []byte) []byte {
		i := bytes.Index(b, []byte(marker))
		if i < 0 {
			t.Errorf("the body has no %q to tamper with", marker)
			return b
		}
		j := i + len(marker)
		if b[j] == 'a' {
			b[j] = 'b'
		} else {
			b[j] = 'a'
		}
		return b
	}
}

// FlipChecksumBit flips the lowest bit of the first byte of the base64
// value that follows marker (a trailer's "name:"), re-encoding it in place.
func FlipChecksumBit(t testing.TB, marker string) func([]byte) []byte {
	return func(b []byte) []byte {
		i := bytes.Index(b, []byte(marker))
		if i < 0 {
			t.Errorf("the body has no %q to tamper with", marker)
			return b
		}
		start := i + len(marker)
		end := start + bytes.IndexAny(b[start:], "\r\n")
		raw, err := base64.StdEncoding.DecodeString(string(b[start:end]))
		if err != nil || len(raw) == 0 {
			t.Errorf("the value after %q is not base64: %q", marker, b[start:end])
			return b
		}
		raw[0] ^= 1
		copy(b[start:end], base64.StdEncoding.EncodeToString(raw))
		return b
	}
}
