package wire

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The examples in AWS's S3 documentation ("Signature Calculations for the
// Authorization Header", "Authenticating Requests: Using Query
// Parameters", "Signature Calculations in Chunks"), whose signatures are
// published there. They pin the canonical request, the string to sign and
// the chunk chain to S3's definition rather than to any one client.

const (
	docAccessKey = "AKIAIOSFODNN7EXAMPLE"
	docSecret    = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

func docVerifier(t *testing.T, now time.Time) *Verifier {
	t.Helper()
	v, err := NewVerifier(StaticCredentials{docAccessKey: docSecret}, Options{Region: "us-east-1", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

var docTime = time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)

func TestDocGetObject(t *testing.T) {
	r, _ := http.NewRequest("GET", "https://examplebucket.s3.amazonaws.com/test.txt", nil)
	r.Header.Set("Range", "bytes=0-9")
	r.Header.Set("X-Amz-Content-Sha256", emptySHA256)
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
	if _, err := docVerifier(t, docTime).Verify(r); err != nil {
		t.Fatalf("AWS's GetObject example: %v", err)
	}
	r.Header.Set("Range", "bytes=0-10")
	if _, err := docVerifier(t, docTime).Verify(r); code(err) != CodeSignatureDoesNotMatch {
		t.Fatalf("the example with another Range: %v, want SignatureDoesNotMatch", err)
	}
}

func TestDocPresigned(t *testing.T) {
	const u = "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
	r, _ := http.NewRequest("GET", u, nil)
	a, err := docVerifier(t, docTime.Add(time.Hour)).Verify(r)
	if err != nil {
		t.Fatalf("AWS's presigned example: %v", err)
	}
	if !a.Presigned || a.PayloadHash != UnsignedPayload {
		t.Errorf("presigned %v, payload %q", a.Presigned, a.PayloadHash)
	}
	_, err = docVerifier(t, docTime.Add(86400*time.Second+time.Second)).Verify(r)
	if code(err) != CodeAccessDenied || !strings.Contains(err.Error(), "Request has expired") {
		t.Fatalf("the example a day and a second later: %v, want AccessDenied: Request has expired", err)
	}
}

// docChunkedRequest is the example PUT of 66,560 bytes of 'a' in chunks of
// 65,536 and 1,024 bytes, with AWS's published signatures.
func docChunkedRequest() (*http.Request, []byte) {
	data := bytes.Repeat([]byte{'a'}, 66560)
	var body bytes.Buffer
	body.WriteString("10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n")
	body.Write(data[:65536])
	body.WriteString("\r\n400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n")
	body.Write(data[65536:])
	body.WriteString("\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n")
	r, _ := http.NewRequest("PUT", "https://s3.amazonaws.com/examplebucket/chunkObject.txt", bytes.NewReader(body.Bytes()))
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	r.Header.Set("X-Amz-Storage-Class", "REDUCED_REDUNDANCY")
	r.Header.Set("Content-Encoding", "aws-chunked")
	r.Header.Set("X-Amz-Decoded-Content-Length", "66560")
	r.Header.Set("Content-Length", "66824")
	r.Header.Set("X-Amz-Content-Sha256", StreamingSigned)
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9")
	return r, data
}

func TestDocChunked(t *testing.T) {
	r, data := docChunkedRequest()
	a, err := docVerifier(t, docTime).Verify(r)
	if err != nil {
		t.Fatalf("AWS's chunked example: %v", err)
	}
	b, err := OpenBody(r, a, BodyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(b)
	if err != nil {
		t.Fatalf("reading AWS's chunked example: %v", err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("decoded %d bytes, want the %d of the example", len(got), len(data))
	}
}

func code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// queryOf parses a query string for tests.
func queryOf(s string) url.Values {
	q, _ := url.ParseQuery(s)
	return q
}
