package objstore

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/fencedstore/fence/internal/format"
)

// manifestBody is the body of one manifest write: the encoded manifest,
// in a buffer that the next write reuses, so that a commit does not
// allocate its manifest's size (tens of KiB with a full commit log and
// inline values) every time. The buffer goes back to the pool on Close,
// which cas.Run calls once the backend's Put has returned. After that the
// body reads nothing: an HTTP transport may still be reading a request
// body after the request has ended (the store answered before the body
// was sent), and such a late read fails rather than read the bytes of a
// later write. It is safe for concurrent use.
//
// Len, Size and WriteTo let the S3 backends send it as it is, without a
// copy, as they send a *bytes.Reader (s3part.InMemory).
type manifestBody struct {
	mu   sync.Mutex
	buf  *[]byte // nil once closed
	data []byte
	off  int64
}

// manifestBufs holds the buffers of manifestBody. spareManifestBuf
// keeps one more outside the pool, which every garbage collection
// empties: a commit of large manifests (a 186 KB one with 100 inline
// values allocates about 400 KB a commit, so the collector runs every
// few commits) found the pool empty often enough to allocate 36 KB a
// commit on average (BenchmarkCommitInlineCost), and the spare keeps the
// buffer of a process's last write. It holds at most maxPooledManifest
// bytes for the life of the process.
var (
	manifestBufs     = sync.Pool{New: func() any { return new([]byte) }}
	spareManifestBuf atomic.Pointer[[]byte]
)

// getManifestBuf returns a buffer for newManifestBody: the spare, else
// one from the pool.
func getManifestBuf() *[]byte {
	if bp := spareManifestBuf.Swap(nil); bp != nil {
		return bp
	}
	return manifestBufs.Get().(*[]byte)
}

// putManifestBuf gives bp back: to the spare slot if it is empty, else
// to the pool.
func putManifestBuf(bp *[]byte) {
	if !spareManifestBuf.CompareAndSwap(nil, bp) {
		manifestBufs.Put(bp)
	}
}

// maxPooledManifest is the largest buffer kept for the next write.
const maxPooledManifest = 4 << 20

// errBodyClosed is what a read of a manifestBody after its write returns.
var errBodyClosed = errors.New("objstore: read of a manifest body after its write ended")

// newManifestBody encodes m (format.AppendEncode) into a pooled buffer.
func newManifestBody(m *format.Manifest) (*manifestBody, error) {
	bp := getManifestBuf()
	data, err := format.AppendEncode((*bp)[:0], m)
	if err != nil {
		putManifestBuf(bp)
		return nil, err
	}
	*bp = data
	return &manifestBody{buf: bp, data: data}, nil
}

func (b *manifestBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.buf == nil:
		return 0, errBodyClosed
	case b.off >= int64(len(b.data)):
		return 0, io.EOF
	}
	n := copy(p, b.data[b.off:])
	b.off += int64(n)
	return n, nil
}

// WriteTo writes what is left of the body to w, in chunks, so that a
// Close waits for one chunk at most.
func (b *manifestBody) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		b.mu.Lock()
		if b.buf == nil {
			b.mu.Unlock()
			return total, errBodyClosed
		}
		chunk := b.data[b.off:min(b.off+32<<10, int64(len(b.data)))]
		if len(chunk) == 0 {
			b.mu.Unlock()
			return total, nil
		}
		n, err := w.Write(chunk)
		b.off += int64(n)
		b.mu.Unlock()
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
}

func (b *manifestBody) Seek(offset int64, whence int) (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf == nil {
		return 0, errBodyClosed
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += b.off
	case io.SeekEnd:
		offset += int64(len(b.data))
	default:
		return 0, errors.New("objstore: manifest body: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("objstore: manifest body: negative position")
	}
	b.off = offset
	return offset, nil
}

// Len returns the number of bytes not yet read.
func (b *manifestBody) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return max(0, len(b.data)-int(b.off))
}

// Size returns the body's length.
func (b *manifestBody) Size() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return int64(len(b.data))
}

// Close ends the body's use and gives its buffer back.
func (b *manifestBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf != nil && cap(*b.buf) <= maxPooledManifest {
		putManifestBuf(b.buf)
	}
	b.buf, b.data = nil, nil
	return nil
}
