package miniostore

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// seekOnly hides every method of its body but Read and Seek, as a file
// has them: Put cannot take it for a body held in memory.
type seekOnly struct{ io.ReadSeeker }

func seekable(d []byte) io.Reader { return seekOnly{bytes.NewReader(d)} }
func inMemory(d []byte) io.Reader { return bytes.NewReader(d) }
func piped(d []byte) io.Reader    { return s3test.Opaque{R: bytes.NewReader(d)} }

// readerAt is a body that can be read at any offset, as a file can, but
// is not held in memory: Put reads it into part buffers.
func readerAt(d []byte) io.Reader { return io.NewSectionReader(bytes.NewReader(d), 0, int64(len(d))) }

func randomBytes(n int) []byte {
	d := make([]byte, n)
	rand.Read(d)
	return d
}

// TestPutHashed: every way Put sends a body (one buffered PutObject, one
// PutObject of a body held in memory, one streamed PutObject of a body
// read twice, a multipart upload of a body of known and of unknown size,
// concurrent parts of a body held in memory or read at any offset),
// at sizes around the part size and SinglePutMax, reports the length,
// SHA-256 and CRCs of what it stored, on success and with a failed
// precondition.
func TestPutHashed(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		const part, single = MinPartSize, 2*MinPartSize + 1
		opts.PartSize, opts.SinglePutMax = part, single
		b := newBucket(t, ep, "", opts)
		small, atPart, pastPart := randomBytes(1000), randomBytes(part), randomBytes(part+1)
		atSingle, pastSingle, belowTwo := randomBytes(single), randomBytes(single+1), randomBytes(2*part-1)
		s3test.PutHashed(t, b, []s3test.HashedCase{
			{Name: "buffered", Data: small, Body: piped, Size: s3test.Known},
			{Name: "buffered-at-part-size", Data: atPart, Body: piped, Size: s3test.Known},
			{Name: "buffered-seekable-at-part-size", Data: atPart, Body: seekable, Size: s3test.Known},
			{Name: "in-memory", Data: small, Body: inMemory, Size: s3test.Known},
			{Name: "in-memory-past-part-size", Data: pastPart, Body: inMemory, Size: s3test.Known},
			{Name: "in-memory-below-two-parts", Data: belowTwo, Body: inMemory, Size: s3test.Known},
			{Name: "streamed-past-part-size", Data: pastPart, Body: seekable, Size: s3test.Known},
			{Name: "streamed-at-SinglePutMax", Data: atSingle, Body: seekable, Size: s3test.Known},
			{Name: "multipart", Data: pastPart, Body: piped, Size: s3test.Known},
			{Name: "concurrent-in-memory-past-SinglePutMax", Data: pastSingle, Body: inMemory, Size: s3test.Known},
			{Name: "multipart-seekable-past-SinglePutMax", Data: pastSingle, Body: seekable, Size: s3test.Known},
			{Name: "concurrent-in-memory", Data: atSingle, Body: inMemory, Size: s3test.Known},
			{Name: "concurrent-file-like", Data: atSingle, Body: readerAt, Size: s3test.Known},
			{Name: "buffered-unknown-size", Data: atPart, Body: piped, Size: s3test.Unknown},
			{Name: "multipart-unknown-size", Data: pastSingle, Body: piped, Size: s3test.Unknown},
		})
	})
}

// recorder records the PUT and POST requests a client sends.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	reqs []string // "METHOD ?query X-Amz-Content-Sha256"
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut || req.Method == http.MethodPost {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Method+" ?"+req.URL.RawQuery+" "+req.Header.Get("X-Amz-Content-Sha256"))
		r.mu.Unlock()
	}
	return r.next.RoundTrip(req)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	reqs := r.reqs
	r.reqs = nil
	return reqs
}

// recordedBackend returns a backend over a fresh bucket at ep, through a
// client configured as Open configures it (and with copts' changes) whose
// requests the returned recorder sees.
func recordedBackend(t *testing.T, ep string, opts Options, copts func(*minio.Options)) (*Backend, *recorder) {
	t.Helper()
	made := newBucket(t, ep, "", opts)
	host, secure, err := parseEndpoint(ep, false)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{next: ExpectContinue(http.DefaultTransport.(*http.Transport).Clone())}
	mo := &minio.Options{
		Creds:     credentials.NewChainCredentials([]credentials.Provider{&credentials.EnvAWS{}, &credentials.EnvMinio{}}),
		Secure:    secure,
		Region:    opts.Region,
		Transport: rec,
	}
	if copts != nil {
		copts(mo)
	}
	client, err := minio.New(host, mo)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newBackend(client, made.bucket, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	return b, rec
}

// counting counts the bytes read from its body.
type counting struct {
	io.ReadSeeker
	n int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.ReadSeeker.Read(p)
	c.n += int64(n)
	return n, err
}

// TestSignedWithBodyHash: a body sent with one PutObject goes in exactly
// one request, signed with the SHA-256 Put computed (the request's
// X-Amz-Content-Sha256), not with minio-go's streaming signature, which
// would hash the body a second time as it is sent; a seekable body is
// read exactly twice (the hash, then the send).
func TestSignedWithBodyHash(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		opts.PartSize, opts.SinglePutMax = MinPartSize, 2*MinPartSize
		b, rec := recordedBackend(t, ep, opts, nil)
		for _, tc := range []struct {
			name string
			data []byte
			body func([]byte) io.Reader
		}{
			{"buffered", randomBytes(1000), piped},
			{"in-memory", randomBytes(2*MinPartSize - 1), inMemory},
			{"streamed", randomBytes(MinPartSize + 1), seekable},
		} {
			t.Run(tc.name, func(t *testing.T) {
				rec.take()
				body := tc.body(tc.data)
				var c *counting
				if s, ok := body.(seekOnly); ok {
					c = &counting{ReadSeeker: s.ReadSeeker}
					body = c
				}
				_, dg, err := b.PutHashed(t.Context(), tc.name, body, int64(len(tc.data)), driver.PutOptions{Mode: driver.Create{}})
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(tc.data)
				want := []string{"PUT ? " + hex.EncodeToString(sum[:])}
				if got := rec.take(); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				if dg.SHA256 != sum {
					t.Fatalf("digest %x, want %x", dg.SHA256, sum)
				}
				if c != nil && c.n != 2*int64(len(tc.data)) {
					t.Fatalf("read %d bytes of a %d-byte body; want 2 passes", c.n, len(tc.data))
				}
				if got := getBytes(t, b, tc.name); !bytes.Equal(got, tc.data) {
					t.Fatalf("stored %d bytes, not the %d written", len(got), len(tc.data))
				}
			})
		}
	})
}

// getBytes returns the object's content.
func getBytes(t *testing.T, b driver.Backend, key string) []byte {
	t.Helper()
	rc, _, err := b.Get(t.Context(), key, driver.GetOptions{})
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	return data
}
