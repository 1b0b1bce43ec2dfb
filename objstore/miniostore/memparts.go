package miniostore

import (
	"context"
	"crypto/sha256"
	"io"
	"sync"

	"github.com/fencedstore/fence/objstore/driver"
)

// hashChunk is the size of the buffers through which memParts reads a
// part or the body to hash it, kept in chunks between puts.
const hashChunk = 64 << 10

var chunks = sync.Pool{New: func() any { return new([hashChunk]byte) }}

// memParts is a partSource for a body held in memory (s3part.InMemory)
// that can be read at any offset: a *bytes.Reader or a *strings.Reader.
// A part is sent straight from the body, through an io.SectionReader,
// without a copy, and hashed from it just before it is sent; the digest
// reads the body once more, beside the parts.
//
// The parts and the digest thus read the body separately, as s3store and
// the one-PutObject paths read a body held in memory twice (to hash it,
// then to send it): such a body cannot change unless its owner writes to
// its bytes during Put, a data race. A part that changed after it was
// hashed is refused by the store (its signature no longer matches).
type memParts struct {
	r    io.ReaderAt
	size int64
}

func (m *memParts) reserve(context.Context, int, int64) error { return nil }

func (m *memParts) part(_ int, off, size int64) (io.ReadSeeker, [sha256.Size]byte, error) {
	sec := io.NewSectionReader(m.r, off, size)
	var sum [sha256.Size]byte
	h := sha256.New()
	buf := chunks.Get().(*[hashChunk]byte)
	defer chunks.Put(buf)
	if n, err := io.CopyBuffer(h, sec, buf[:]); err != nil || n != size {
		if err == nil {
			err = shortBody(m.size, off, n)
		}
		return nil, sum, err
	}
	h.Sum(sum[:0])
	_, err := sec.Seek(0, io.SeekStart)
	return sec, sum, err
}

func (m *memParts) sent(int) {}

func (m *memParts) digest(ctx context.Context) (driver.Digest, error) {
	d := driver.NewDigester()
	chunk := chunks.Get().(*[hashChunk]byte)
	defer chunks.Put(chunk)
	buf := chunk[:]
	for off := int64(0); off < m.size; {
		if err := ctx.Err(); err != nil {
			return driver.Digest{}, err
		}
		n, err := m.r.ReadAt(buf[:min(int64(len(buf)), m.size-off)], off)
		d.Write(buf[:n])
		off += int64(n)
		switch {
		case err == io.EOF && off == m.size:
		case err != nil:
			return driver.Digest{}, err
		case n == 0:
			return driver.Digest{}, io.ErrNoProgress
		}
	}
	return d.Digest(), nil
}
