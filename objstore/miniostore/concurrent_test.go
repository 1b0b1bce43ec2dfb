package miniostore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// partHook sits in a client's transport: it counts the UploadPart
// requests in flight, and calls before, if set, ahead of each one, which
// may answer the request in the store's place.
type partHook struct {
	next   http.RoundTripper
	before func(req *http.Request, part int) *http.Response

	mu             sync.Mutex
	inFlight, most int
}

func (h *partHook) RoundTrip(req *http.Request) (*http.Response, error) {
	part, _ := strconv.Atoi(req.URL.Query().Get("partNumber"))
	if req.Method != http.MethodPut || part == 0 {
		return h.next.RoundTrip(req)
	}
	h.mu.Lock()
	h.inFlight++
	h.most = max(h.most, h.inFlight)
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.inFlight--
		h.mu.Unlock()
	}()
	if h.before != nil {
		if resp := h.before(req, part); resp != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return resp, nil
		}
	}
	return h.next.RoundTrip(req)
}

func (h *partHook) mostInFlight() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.most
}

// injectedFailure is the answer of a store that refuses the request with
// an error minio-go does not retry.
func injectedFailure(req *http.Request) *http.Response {
	const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InjectedFailure</Code><Message>injected by the test</Message></Error>`
	return &http.Response{
		StatusCode: http.StatusBadRequest, Status: "400 Bad Request", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/xml"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// concurrentBackend returns a backend over a fresh bucket with parts of
// MinPartSize, conc at a time, whose requests go through hook and rec.
// Bodies above MinPartSize (SinglePutMax too) go in a multipart upload:
// of concurrent parts if they can be read at any offset.
func concurrentBackend(t *testing.T, srv s3test.Server, conc int, hook *partHook) (*Backend, *recorder) {
	ep, opts := testEndpoint(srv)
	opts.PartSize, opts.SinglePutMax, opts.PartConcurrency = MinPartSize, MinPartSize, conc
	return recordedBackend(t, ep, opts, func(o *minio.Options) {
		hook.next = o.Transport
		o.Transport = hook
	})
}

// fileBody writes junk then data to a file and returns it open at data.
func fileBody(t *testing.T, junk, data []byte) *os.File {
	name := filepath.Join(t.TempDir(), "body")
	if err := os.WriteFile(name, append(append([]byte{}, junk...), data...), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.Seek(int64(len(junk)), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestConcurrentPut: a body held in memory, a file read from its
// offset, a section reader and a bytes.Reader already partly read each
// go in one multipart upload whose parts are each signed with their own
// SHA-256; the object is the body, PutHashed reports its digest, and the
// body's offset is where it was.
func TestConcurrentPut(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		b, rec := concurrentBackend(t, srv, DefaultPartConcurrency, &partHook{})
		data, junk := randomBytes(3*MinPartSize+1000), randomBytes(777)
		both := append(append([]byte{}, junk...), data...)
		partly := bytes.NewReader(both)
		partly.Seek(int64(len(junk)), io.SeekStart)
		for _, tc := range []struct {
			name string
			body io.ReadSeeker
			at   int64 // where the body starts
		}{
			{"in-memory", bytes.NewReader(data), 0},
			{"file", fileBody(t, junk, data), int64(len(junk))},
			{"section", io.NewSectionReader(bytes.NewReader(both), int64(len(junk)), int64(len(data))), 0},
			{"partly-read", partly, int64(len(junk))},
		} {
			t.Run(tc.name, func(t *testing.T) {
				rec.take()
				_, dg, err := b.PutHashed(t.Context(), tc.name, tc.body, int64(len(data)), driver.PutOptions{Mode: driver.Create{}})
				if err != nil {
					t.Fatal(err)
				}
				if want := driver.DigestOf(data); dg != want {
					t.Fatalf("digest %+v, want %+v", dg, want)
				}
				if got := getBytes(t, b, tc.name); !bytes.Equal(got, data) {
					t.Fatalf("stored %d bytes, not the %d written", len(got), len(data))
				}
				if at, _ := tc.body.Seek(0, io.SeekCurrent); at != tc.at {
					t.Fatalf("the body's offset moved from %d to %d", tc.at, at)
				}
				reqs := rec.take()
				if len(reqs) != 6 || !strings.HasPrefix(reqs[0], "POST ?uploads") {
					t.Fatalf("requests %q; want a multipart upload of 4 parts", reqs)
				}
				for _, r := range reqs[1:5] {
					q, sum, _ := strings.Cut(strings.TrimPrefix(r, "PUT ?"), " ")
					n, _ := strconv.Atoi(strings.TrimPrefix(strings.Split(q, "&")[0], "partNumber="))
					if n < 1 || n > 4 {
						t.Fatalf("request %q is not a part", r)
					}
					part := data[(n-1)*MinPartSize : min(n*MinPartSize, len(data))]
					if want := sha256.Sum256(part); sum != hex.EncodeToString(want[:]) {
						t.Fatalf("part %d signed with %s, want its SHA-256 %x", n, sum, want)
					}
				}
			})
		}
	})
}

// TestPartsConcurrent: parts go PartConcurrency at a time, and never
// more; PartConcurrency 1 sends them one after another.
func TestPartsConcurrent(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		data := randomBytes(4 * MinPartSize)
		for _, conc := range []int{4, 2, 1} {
			t.Run(strconv.Itoa(conc), func(t *testing.T) {
				// Each part waits before it is sent, so parts sent at once
				// overlap.
				hook := &partHook{before: func(*http.Request, int) *http.Response {
					time.Sleep(200 * time.Millisecond)
					return nil
				}}
				b, _ := concurrentBackend(t, srv, conc, hook)
				for _, body := range []io.Reader{bytes.NewReader(data), readerAt(data)} {
					hook.mu.Lock()
					hook.most = 0
					hook.mu.Unlock()
					if _, err := b.Put(t.Context(), "k", body, int64(len(data)), driver.PutOptions{}); err != nil {
						t.Fatal(err)
					}
					if got := hook.mostInFlight(); got != conc {
						t.Fatalf("%T: at most %d parts in flight, want %d", body, got, conc)
					}
				}
			})
		}
	})
}

// TestFailedPartAborts: a part the store refuses fails the put, which
// aborts the upload and stores nothing.
func TestFailedPartAborts(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		hook := &partHook{before: func(req *http.Request, part int) *http.Response {
			if part == 2 {
				return injectedFailure(req)
			}
			return nil
		}}
		b, _ := concurrentBackend(t, srv, DefaultPartConcurrency, hook)
		data := randomBytes(3*MinPartSize + 1)
		for name, body := range map[string]io.Reader{"in-memory": bytes.NewReader(data), "file": fileBody(t, nil, data)} {
			t.Run(name, func(t *testing.T) {
				_, dg, err := b.PutHashed(t.Context(), name, body, int64(len(data)), driver.PutOptions{Mode: driver.Create{}})
				if err == nil || !strings.Contains(err.Error(), "injected by the test") {
					t.Fatalf("Put with a refused part = %v; want the refusal", err)
				}
				if dg.Known {
					t.Fatalf("digest %+v known for a put that stored nothing", dg)
				}
				if _, err := b.Head(t.Context(), name); !errors.Is(err, driver.ErrNotFound) {
					t.Fatalf("Head after the failed put = %v; want ErrNotFound", err)
				}
				if ups := listUploads(t, b.client, b.bucket); len(ups) != 0 {
					t.Fatalf("%d multipart uploads left behind", len(ups))
				}
			})
		}
	})
}

// TestConcurrentPrecondition: the precondition is decided when the
// upload completes: an object created, or replaced, while the parts
// upload makes the put fail with ErrPreconditionFailed, reporting the
// digest of the body it read whole, and the other object stays.
func TestConcurrentPrecondition(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		var b *Backend
		var other []byte
		var once sync.Once
		hook := &partHook{before: func(req *http.Request, _ int) *http.Response {
			once.Do(func() {
				key := strings.TrimPrefix(req.URL.Path, "/"+b.bucket+"/")
				if _, err := b.client.PutObject(req.Context(), b.bucket, key, bytes.NewReader(other), int64(len(other)), minio.PutObjectOptions{}); err != nil {
					t.Errorf("the other writer's put: %v", err)
				}
			})
			return nil
		}}
		b, _ = concurrentBackend(t, srv, DefaultPartConcurrency, hook)
		data := randomBytes(2*MinPartSize + 10)
		first, err := b.Put(t.Context(), "update", bytes.NewReader([]byte("first")), 5, driver.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			key  string
			mode driver.PutMode
		}{
			{"create", driver.Create{}},
			{"update", driver.Update{ETag: first.ETag}},
		} {
			t.Run(tc.key, func(t *testing.T) {
				once = sync.Once{}
				other = []byte("the other writer's " + tc.key)
				_, dg, err := b.PutHashed(t.Context(), tc.key, readerAt(data), int64(len(data)), driver.PutOptions{Mode: tc.mode})
				if !errors.Is(err, driver.ErrPreconditionFailed) {
					t.Fatalf("Put over an object written during the upload = %v; want ErrPreconditionFailed", err)
				}
				if want := driver.DigestOf(data); dg != want {
					t.Fatalf("digest %+v, want %+v", dg, want)
				}
				if got := getBytes(t, b, tc.key); !bytes.Equal(got, other) {
					t.Fatalf("object holds %q..., want the other writer's %q", got[:min(len(got), 40)], other)
				}
				if ups := listUploads(t, b.client, b.bucket); len(ups) != 0 {
					t.Fatalf("%d multipart uploads left behind", len(ups))
				}
			})
		}
	})
}

// TestCanceledPutAborts: a put whose caller gives up while its parts
// upload fails with the context's error and aborts the upload, though
// the caller's context has ended.
func TestCanceledPutAborts(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		hook := &partHook{before: func(req *http.Request, part int) *http.Response {
			if part == 2 {
				cancel()
			}
			return nil
		}}
		b, _ := concurrentBackend(t, srv, DefaultPartConcurrency, hook)
		data := randomBytes(3*MinPartSize + 1)
		_, _, err := b.PutHashed(ctx, "k", bytes.NewReader(data), int64(len(data)), driver.PutOptions{Mode: driver.Create{}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Put canceled during its upload = %v; want context.Canceled", err)
		}
		if _, err := b.Head(t.Context(), "k"); !errors.Is(err, driver.ErrNotFound) {
			t.Fatalf("Head after the canceled put = %v; want ErrNotFound", err)
		}
		if ups := listUploads(t, b.client, b.bucket); len(ups) != 0 {
			t.Fatalf("%d multipart uploads left behind", len(ups))
		}
	})
}
