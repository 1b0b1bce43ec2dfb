package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzChunkedBody feeds arbitrary bytes to the aws-chunked decoder, as an
// unsigned body with trailers or as a signed one. It must never panic,
// every refusal must be an *Error, Read must never claim more bytes than
// it was given room for, and a body it accepts must decode the same once
// framed again.
func FuzzChunkedBody(f *testing.F) {
	data := []byte("0123456789abcdef")
	f.Add(false, unsignedTrailerBody(data, 5, "x-amz-checksum-crc32:"+crc32Of(data), "\r\n"))
	f.Add(false, unsignedTrailerBody(data, 16, "x-amz-checksum-crc32:"+crc32Of(data), "\n\r\n"))
	f.Add(false, []byte("0\r\n\r\n"))
	f.Add(false, []byte("3\r\nabc\r\n0\r\nx-amz-checksum-sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n"))
	f.Add(true, []byte("3;chunk-signature="+strings.Repeat("a", 64)+"\r\nabc\r\n0;chunk-signature="+strings.Repeat("b", 64)+"\r\n\r\n"))
	f.Add(true, []byte("0;chunk-signature="+strings.Repeat("0", 64)+"\r\nx-amz-checksum-crc32:AAAAAA==\r\nx-amz-trailer-signature:"+strings.Repeat("1", 64)+"\r\n\r\n"))
	f.Fuzz(func(t *testing.T, signed bool, body []byte) {
		var chain *chainSigner
		if signed {
			chain = newChainSigner([]byte("key"), time.Unix(0, 0), Scope{Date: "19700101", Region: "r", Service: "s3"}, strings.Repeat("0", 64))
		}
		out, trailers, err := decodeChunked(body, chain, true)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("a refusal that is not *Error: %v", err)
			}
			return
		}
		if len(out) > len(body) {
			t.Fatalf("decoded %d bytes from %d", len(out), len(body))
		}
		if signed {
			return // a signed body cannot be framed again without its key
		}
		var again bytes.Buffer
		for rest := out; len(rest) > 0; rest = rest[min(len(rest), 7):] {
			fmt.Fprintf(&again, "%x\r\n%s\r\n", min(len(rest), 7), rest[:min(len(rest), 7)])
		}
		again.WriteString("0\r\n")
		for _, tr := range trailers {
			again.WriteString(tr.Name + ":" + tr.Value + "\r\n")
		}
		again.WriteString("\r\n")
		out2, trailers2, err := decodeChunked(again.Bytes(), nil, true)
		if err != nil || !bytes.Equal(out, out2) || fmt.Sprint(trailers) != fmt.Sprint(trailers2) {
			t.Fatalf("framed again, %q decodes to %q %v, %v; first %q %v", again.Bytes(), out2, trailers2, err, out, trailers)
		}
	})
}

// decodeChunked reads body through a chunkReader with small reads, checking
// that no Read reports more than the room it had.
func decodeChunked(body []byte, chain *chainSigner, trailers bool) ([]byte, []Trailer, error) {
	c := newChunkReader(bytes.NewReader(body), chain, trailers, 1<<20)
	var out []byte
	buf := make([]byte, 5)
	for {
		n, err := c.Read(buf)
		if n < 0 || n > len(buf) {
			return nil, nil, fmt.Errorf("Read returned %d for a buffer of %d", n, len(buf))
		}
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, c.Trailers(), nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// FuzzParseAuthorization: the Authorization parser never panics, refuses
// with an *Error of the codes clients expect, and what it accepts, written
// out again, parses to the same thing.
func FuzzParseAuthorization(f *testing.F) {
	f.Add("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
	f.Add("AWS4-HMAC-SHA256 Credential=k/20261206/us-east-1/s3/aws4_request, SignedHeaders=content-length;host, Signature=" + strings.Repeat("0", 64))
	f.Add("AWS AKID:c2ln")
	f.Add("AWS4-HMAC-SHA256 Credential=a/b/c/d/e")
	f.Add("AWS4-HMAC-SHA256 Signature=,Signature=")
	f.Fuzz(func(t *testing.T, header string) {
		a, err := ParseAuthorization(header)
		if err != nil {
			if c := code(err); c != CodeAuthorizationHeaderMalformed && c != CodeInvalidRequest {
				t.Fatalf("refused with %v", err)
			}
			return
		}
		again := fmt.Sprintf("AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s",
			a.Credential.AccessKey, a.Credential.Scope, strings.Join(a.SignedHeaders, ";"), a.Signature)
		b, err := ParseAuthorization(again)
		if err != nil || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%q parsed to %+v; written again as %q it parses to %+v, %v", header, a, again, b, err)
		}
	})
}

// FuzzParsePresigned: the presigned query parser never panics, refuses
// with AuthorizationQueryParametersError, accepts only expiries from one
// second to seven days, and what it accepts, written out again, parses to
// the same thing.
func FuzzParsePresigned(f *testing.F) {
	f.Add("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
	f.Add("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=0")
	f.Add("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=k%2F20261206%2Fr%2Fs3%2Faws4_request&X-Amz-Date=20261206T050000Z&X-Amz-Expires=604801&X-Amz-SignedHeaders=host&X-Amz-Signature=" + strings.Repeat("0", 64))
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		p, err := ParsePresigned(q)
		if err != nil {
			if c := code(err); c != CodeAuthorizationQueryParametersError {
				t.Fatalf("refused with %v", err)
			}
			return
		}
		if p.Expires < time.Second || p.Expires > maxPresignedExpires {
			t.Fatalf("accepted an expiry of %s", p.Expires)
		}
		again := url.Values{
			"X-Amz-Algorithm":     {algorithmV4},
			"X-Amz-Credential":    {p.Credential.AccessKey + "/" + p.Credential.Scope.String()},
			"X-Amz-Date":          {p.Date.Format(amzDateLayout)},
			"X-Amz-Expires":       {fmt.Sprint(int64(p.Expires / time.Second))},
			"X-Amz-SignedHeaders": {strings.Join(p.SignedHeaders, ";")},
			"X-Amz-Signature":     {p.Signature},
		}
		p2, err := ParsePresigned(again)
		if err != nil || fmt.Sprint(p) != fmt.Sprint(p2) {
			t.Fatalf("%q parsed to %+v; written again it parses to %+v, %v", raw, p, p2, err)
		}
	})
}
