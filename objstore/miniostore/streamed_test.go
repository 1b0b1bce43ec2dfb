package miniostore

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// changing reads one set of bytes the first time and another after it
// is rewound: a file rewritten between Put's two passes.
type changing struct {
	*bytes.Reader
	second []byte
	passes int
}

func (c *changing) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekStart && c.Reader.Len() == 0 {
		c.passes++
		c.Reader = bytes.NewReader(c.second)
	}
	return c.Reader.Seek(off, whence)
}

// streamedBackend returns a backend over a fresh bucket whose puts of
// seekable bodies from MinPartSize+1 to 2*MinPartSize bytes take the
// streamed path.
func streamedBackend(t *testing.T, srv s3test.Server) *Backend {
	ep, opts := testEndpoint(srv)
	opts.PartSize, opts.SinglePutMax = MinPartSize, 2*MinPartSize
	return newBucket(t, ep, "", opts)
}

// TestStreamedPutSigned: a streamed body is signed with the hash of its
// first pass, so a body that changes before it is sent stores nothing.
func TestStreamedPutSigned(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		b := streamedBackend(t, srv)
		first, second := randomBytes(MinPartSize+1), randomBytes(MinPartSize+1)
		body := &changing{Reader: bytes.NewReader(first), second: second}
		_, err := b.Put(t.Context(), "changed", seekOnly{body}, int64(len(first)), driver.PutOptions{Mode: driver.Create{}})
		if err == nil {
			t.Fatal("Put of a body that changed between its hash and its send succeeded")
		}
		if body.passes == 0 {
			t.Fatal("the body was never rewound: not the streamed path")
		}
		if _, err := b.Head(t.Context(), "changed"); !errors.Is(err, driver.ErrNotFound) {
			t.Fatalf("Head after the refused put = %v; want ErrNotFound", err)
		}
		t.Logf("refused: %v", err)
	})
}

// TestStreamedFromOffset: a seekable body already read part of the way
// stores what is left of it, though minio-go rewinds a body to offset 0
// before it sends it.
func TestStreamedFromOffset(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		b := streamedBackend(t, srv)
		data := randomBytes(MinPartSize + 11)
		r := bytes.NewReader(data)
		r.Seek(10, io.SeekStart)
		info, dg, err := b.PutHashed(t.Context(), "offset", seekOnly{r}, int64(len(data)-10), driver.PutOptions{Mode: driver.Create{}})
		if err != nil {
			t.Fatal(err)
		}
		if want := driver.DigestOf(data[10:]); dg != want || info.Size != want.Size {
			t.Fatalf("PutHashed = size %d, digest %+v; want %+v", info.Size, dg, want)
		}
		if got := getBytes(t, b, "offset"); !bytes.Equal(got, data[10:]) {
			t.Fatalf("stored %d bytes, not the %d after the body's offset", len(got), len(data)-10)
		}
	})
}

// TestStreamedLengthDiffers: a seekable body longer or shorter than its
// declared size stores nothing, fails naming the difference, and reports
// no digest.
func TestStreamedLengthDiffers(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		b := streamedBackend(t, srv)
		data := randomBytes(MinPartSize + 2)
		for _, tc := range []struct {
			name string
			size int64
			want string
		}{
			{"longer", int64(len(data)) - 1, "longer than the declared size"},
			{"shorter", int64(len(data)) + 1, "size says"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, dg, err := b.PutHashed(t.Context(), tc.name, seekable(data), tc.size, driver.PutOptions{Mode: driver.Create{}})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Put of a body %s than its size = %v; want an error saying %q", tc.name, err, tc.want)
				}
				if dg.Known {
					t.Fatalf("digest %+v is known for a put that stored nothing", dg)
				}
				if _, err := b.Head(t.Context(), tc.name); !errors.Is(err, driver.ErrNotFound) {
					t.Fatalf("Head after the refused put = %v; want ErrNotFound", err)
				}
			})
		}
	})
}

// TestTrailingHeadersClient: a client made with TrailingHeaders, which
// refuses a payload hash given to it, still stores bodies held in memory
// with one PutObject and reports their digests, and those of two parts
// or more in concurrent parts. A seekable body goes in
// parts: the first one Put streams, once refused, is sent from its start
// again, and one that changed by then reports the digest of what was
// stored; later ones are read only once.
func TestTrailingHeadersClient(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		opts.PartSize, opts.SinglePutMax = MinPartSize, 2*MinPartSize
		b, rec := recordedBackend(t, ep, opts, func(o *minio.Options) { o.TrailingHeaders = true })
		first, second := randomBytes(MinPartSize+1), randomBytes(MinPartSize+1)
		changed := &changing{Reader: bytes.NewReader(first), second: second}
		once := &counting{ReadSeeker: bytes.NewReader(first)}
		twoParts := randomBytes(2 * MinPartSize)
		for _, tc := range []struct {
			name      string
			data      []byte // stored
			body      io.Reader
			multipart bool
		}{
			{"seekable-changing", second, seekOnly{changed}, true},
			{"in-memory", first[:1000], bytes.NewReader(first[:1000]), false},
			{"in-memory-past-part-size", first, bytes.NewReader(first), false},
			{"seekable", first, once, true},
			{"in-memory-concurrent", twoParts, bytes.NewReader(twoParts), true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				rec.take()
				_, dg, err := b.PutHashed(t.Context(), tc.name, tc.body, int64(len(tc.data)), driver.PutOptions{Mode: driver.Create{}})
				if err != nil {
					t.Fatal(err)
				}
				reqs := rec.take()
				if multipart := strings.HasPrefix(reqs[0], "POST ?uploads"); multipart != tc.multipart || !multipart && len(reqs) != 1 {
					t.Fatalf("requests %q; want multipart %v", reqs, tc.multipart)
				}
				got := getBytes(t, b, tc.name)
				if !bytes.Equal(got, tc.data) {
					t.Fatalf("stored %d bytes, not the %d expected", len(got), len(tc.data))
				}
				if want := driver.DigestOf(got); dg != want {
					t.Fatalf("digest %+v, want %+v (of what was stored)", dg, want)
				}
			})
		}
		if changed.passes == 0 {
			t.Error("the changing body was never rewound: not the streamed path")
		}
		if once.n != int64(len(first)) {
			t.Errorf("a seekable body was read %d bytes for %d: streamed again after the client refused a hash", once.n, len(first))
		}
	})
}
