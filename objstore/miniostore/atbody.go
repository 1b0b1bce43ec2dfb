package miniostore

import (
	"context"
	"fmt"
	"io"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3part"
)

// putAt puts a body that can be read at any offset with putConcurrent:
// a body held in memory (s3part.InMemory) that is an io.ReaderAt (a
// *bytes.Reader, a *strings.Reader), sent without a copy (memParts); or
// an io.ReaderAt that is also an io.Seeker (an *os.File, an
// *io.SectionReader, a *bytes.Reader already partly read), read from
// its current offset, part by part into buffers (bufParts). It leaves
// the body's offset where it was. ok is false, and nothing was sent, for
// any other body, and for one whose length from its offset is not size
// (which Put's other paths refuse, naming both lengths).
func (b *Backend) putAt(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions, hashWhole bool) (_ driver.ObjectInfo, _ driver.Digest, ok bool, _ error) {
	var src partSource
	if mem, ok := s3part.InMemory(body, size); ok {
		if r, ok := mem.(io.ReaderAt); ok {
			src = &memParts{r: r, size: size}
		}
	}
	if src == nil {
		r, start, ok, err := atBody(body, size)
		if err != nil {
			return driver.ObjectInfo{}, driver.Digest{}, true, b.fail("put", key, fmt.Errorf("reading body: %w", err))
		}
		if !ok {
			return driver.ObjectInfo{}, driver.Digest{}, false, nil
		}
		_, n := b.concurrentParts(size)
		src = newBufParts(r, start, size, n, b.partConc, hashWhole)
	}
	info, dg, err := b.putConcurrent(ctx, key, src, size, opts, hashWhole)
	return info, dg, true, err
}

// atBody returns body as an io.ReaderAt and the offset in it of body's
// next byte, if body is an io.ReaderAt and an io.Seeker whose length
// from that offset (found by seeking to its end) is size. It leaves the
// offset where it was. ok is false, with no error, for any other body,
// and for one that cannot tell its offset (a pipe).
func atBody(body io.Reader, size int64) (_ io.ReaderAt, start int64, ok bool, _ error) {
	r, ok1 := body.(io.ReaderAt)
	s, ok2 := body.(io.Seeker)
	if !ok1 || !ok2 {
		return nil, 0, false, nil
	}
	start, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, 0, false, nil
	}
	end, err := s.Seek(0, io.SeekEnd)
	if _, rerr := s.Seek(start, io.SeekStart); err == nil {
		err = rerr
	}
	if err != nil {
		return nil, 0, false, err
	}
	return r, start, end-start == size, nil
}
