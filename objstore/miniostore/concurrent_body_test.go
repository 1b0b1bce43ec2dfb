package miniostore

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// shrinking is a body that can be read at any offset whose end, as Seek
// reports it, is that of its bytes, but whose reads at an offset stop at
// cut: a file truncated after Put looked at its length.
type shrinking struct {
	*bytes.Reader // Put takes it for a body held in memory
	cut           int64
}

// shrinkingFile is shrinking, but not held in memory.
type shrinkingFile struct{ s *shrinking }

func (f shrinkingFile) Read(p []byte) (int, error)                { return f.s.Read(p) }
func (f shrinkingFile) Seek(off int64, whence int) (int64, error) { return f.s.Seek(off, whence) }
func (f shrinkingFile) ReadAt(p []byte, off int64) (int, error)   { return f.s.ReadAt(p, off) }

func (s *shrinking) ReadAt(p []byte, off int64) (int, error) {
	if off >= s.cut {
		return 0, io.EOF
	}
	if rest := s.cut - off; int64(len(p)) > rest {
		n, _ := s.Reader.ReadAt(p[:rest], off)
		return n, io.EOF
	}
	return s.Reader.ReadAt(p, off)
}

// rewritten is a body that can be read at any offset whose bytes change
// each time they are read: a file another process rewrites while Put
// reads it.
type rewritten struct {
	mu   sync.Mutex
	data []byte
	pos  int64
}

func (r *rewritten) ReadAt(p []byte, off int64) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(p, r.data[off:])
	for i := range n {
		r.data[off+int64(i)] ^= 0xff
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (r *rewritten) Read(p []byte) (int, error) {
	n, err := r.ReadAt(p, r.pos)
	r.pos += int64(n)
	return n, err
}

func (r *rewritten) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += r.pos
	case io.SeekEnd:
		off += int64(len(r.data))
	}
	r.pos = off
	return off, nil
}

// TestConcurrentLengthDiffers: a body that can be read at any offset
// whose length differs from its size, from the start or because it
// shrank during the upload, stores nothing, leaves no upload behind and
// reports no digest.
func TestConcurrentLengthDiffers(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		b, _ := concurrentBackend(t, srv, DefaultPartConcurrency, &partHook{})
		data := randomBytes(3*MinPartSize + 2)
		size := int64(len(data))
		for _, tc := range []struct {
			name string
			body io.Reader
			size int64
			want string
		}{
			{"longer", fileBody(t, nil, data), size - 1, "longer than the declared size"},
			{"shorter", fileBody(t, nil, data), size + 1, "size says"},
			{"shrank", shrinkingFile{&shrinking{Reader: bytes.NewReader(data), cut: 2*MinPartSize + 1}}, size, "shorter than the declared size 15728642"},
			{"shrank-in-memory", &shrinking{Reader: bytes.NewReader(data), cut: 2*MinPartSize + 1}, size, "shorter than the declared size 15728642"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, dg, err := b.PutHashed(t.Context(), tc.name, tc.body, tc.size, driver.PutOptions{Mode: driver.Create{}})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Put of a body %s than its size = %v; want an error saying %q", tc.name, err, tc.want)
				}
				if dg.Known {
					t.Fatalf("digest %+v known for a put that stored nothing", dg)
				}
				if _, err := b.Head(t.Context(), tc.name); !errors.Is(err, driver.ErrNotFound) {
					t.Fatalf("Head after the refused put = %v; want ErrNotFound", err)
				}
				if ups := listUploads(t, b.client, b.bucket); len(ups) != 0 {
					t.Fatalf("%d multipart uploads left behind", len(ups))
				}
			})
		}
	})
}

// TestRewrittenBodyDigest: a body read at any offset whose bytes change
// while Put reads it is read once: PutHashed reports the digest of the
// bytes the parts were signed with and stored.
func TestRewrittenBodyDigest(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		b, _ := concurrentBackend(t, srv, DefaultPartConcurrency, &partHook{})
		data := randomBytes(3*MinPartSize + 3)
		body := &rewritten{data: bytes.Clone(data)}
		_, dg, err := b.PutHashed(t.Context(), "k", body, int64(len(data)), driver.PutOptions{Mode: driver.Create{}})
		if err != nil {
			t.Fatal(err)
		}
		got := getBytes(t, b, "k")
		if !bytes.Equal(got, data) {
			t.Fatalf("stored %d bytes, not the body's %d as first read", len(got), len(data))
		}
		if want := driver.DigestOf(got); dg != want {
			t.Fatalf("digest %+v, want %+v (of what was stored)", dg, want)
		}
	})
}

// slowStart is a body whose first bytes take long to read, so that the
// whole body's digest, which takes the parts in order, falls behind the
// parts after the first.
type slowStart struct{ *bytes.Reader }

func (s slowStart) ReadAt(p []byte, off int64) (int, error) {
	if off == 0 {
		time.Sleep(300 * time.Millisecond)
	}
	return s.Reader.ReadAt(p, off)
}

// TestPartBuffers: a body read into part buffers holds at most
// PartConcurrency+1 of them, though the parts after the first are sent
// long before the digest can take them.
func TestPartBuffers(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		const conc = 2
		b, _ := concurrentBackend(t, srv, conc, &partHook{})
		data := randomBytes(7 * MinPartSize)
		size := int64(len(data))
		_, n := b.concurrentParts(size)
		p := newBufParts(slowStart{bytes.NewReader(data)}, 0, size, n, conc, true)
		_, dg, err := b.putConcurrent(t.Context(), "k", p, size, driver.PutOptions{}, true)
		if err != nil {
			t.Fatal(err)
		}
		if want := driver.DigestOf(data); dg != want {
			t.Fatalf("digest %+v, want %+v", dg, want)
		}
		if p.made > conc+1 {
			t.Fatalf("%d part buffers for %d parts at once; want at most %d", p.made, conc, conc+1)
		}
	})
}
