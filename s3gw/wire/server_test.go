package wire_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/s3gw/wire"
)

const (
	testAccessKey = "AKIDFENCETEST"
	testSecret    = "fence-test-secret-0123456789"
	testRegion    = "us-east-1"
)

// received is what the test server saw of one request.
type received struct {
	Method, Path, Mode string // Mode: x-amz-content-sha256, or "presigned"
	Status             int
	Code               string // the S3 error code refused with, or ""
	Bytes              []byte // the decoded body, kept only when it was accepted
	Checksum           wire.Checksum
}

// recorder is a tiny S3 endpoint for tests: it verifies every request with
// a wire.Verifier, reads its body through wire.OpenBody and keeps the bytes
// only when the read ended in io.EOF, as a gateway that stages on success
// would.
type recorder struct {
	t        *testing.T
	verifier *wire.Verifier
	mu       sync.Mutex
	seen     []received
}

func newRecorder(t *testing.T, now func() time.Time) *recorder {
	t.Helper()
	v, err := wire.NewVerifier(wire.StaticCredentials{testAccessKey: testSecret}, wire.Options{Region: testRegion, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return &recorder{t: t, verifier: v}
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	got := received{Method: r.Method, Path: r.URL.Path, Mode: r.Header.Get("X-Amz-Content-Sha256")}
	defer func() {
		rc.mu.Lock()
		rc.seen = append(rc.seen, got)
		rc.mu.Unlock()
	}()
	fail := func(err error) {
		var e *wire.Error
		if !errors.As(err, &e) {
			rc.t.Errorf("%s %s: an error that is not *wire.Error: %v", r.Method, r.URL, err)
			e = &wire.Error{Code: "InternalError", Message: err.Error(), Status: 500}
		}
		got.Status, got.Code = e.Status, e.Code
		wire.WriteError(w, r, e, "test-request")
	}
	a, err := rc.verifier.Verify(r)
	if err != nil {
		fail(err)
		return
	}
	if a.Presigned {
		got.Mode = "presigned"
	}
	body, err := wire.OpenBody(r, a, wire.BodyOptions{})
	if err != nil {
		fail(err)
		return
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, body); err != nil {
		fail(err)
		return
	}
	sum, ok := body.MD5()
	if !ok {
		rc.t.Errorf("%s %s: MD5 not available after io.EOF", r.Method, r.URL)
	}
	got.Bytes = buf.Bytes()
	got.Checksum, _ = body.Checksum()
	if got.Checksum.Algorithm != "" {
		w.Header().Set(got.Checksum.Algorithm.Header(), got.Checksum.Value)
	}
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum)+`"`)
	got.Status = http.StatusOK
	if r.Method == http.MethodPost {
		// CompleteMultipartUpload and the like are not exercised here.
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// take returns and forgets what the server has seen.
func (rc *recorder) take() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	s := rc.seen
	rc.seen = nil
	return s
}

// last returns the one request seen since the last take.
func (rc *recorder) last(t *testing.T) received {
	t.Helper()
	s := rc.take()
	if len(s) != 1 {
		t.Fatalf("the server saw %d requests, want 1: %+v", len(s), s)
	}
	return s[0]
}

func startServer(t *testing.T, tls bool, now func() time.Time) (*recorder, *httptest.Server) {
	rc := newRecorder(t, now)
	var ts *httptest.Server
	if tls {
		ts = httptest.NewTLSServer(rc)
	} else {
		ts = httptest.NewServer(rc)
	}
	t.Cleanup(ts.Close)
	return rc, ts
}

// payload returns n bytes that are not all alike.
func payload(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// tamper is an http.RoundTripper that passes each request's body, read
// whole, through change before sending it, keeping its length.

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
