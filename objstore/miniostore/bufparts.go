package miniostore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/fencedstore/fence/objstore/driver"
)

// bufParts is a partSource for a body that can be read at any offset
// but may change while Put reads it, such as a file another process
// writes to. Each part is read from the body exactly once, into a
// buffer of its own; it is hashed, sent and added to the whole body's
// digest from that buffer, so the digest is of the bytes the parts were
// signed with and sent.
//
// The digest takes the parts in order (SHA-256 is sequential), and a
// part's buffer is reused once it has been both sent and digested. With
// at most conc parts being sent, bufParts holds at most conc+1 buffers:
// reserve hands buffers out in part order, so the part the digest waits
// for always has one.
type bufParts struct {
	r     io.ReaderAt
	start int64 // the body's offset 0 in r
	size  int64
	whole bool // compute the digest

	free    chan []byte // buffers no part holds
	made    int         // buffers allocated so far (reserve only)
	maxBufs int
	bufs    [][]byte        // part n's buffer at n-1
	refs    []atomic.Int32  // part n's holders (its send, the digest) at n-1
	ready   []chan struct{} // closed when part n has been read and hashed
}

func newBufParts(r io.ReaderAt, start, size int64, nparts, conc int, whole bool) *bufParts {
	p := &bufParts{
		r: r, start: start, size: size, whole: whole,
		maxBufs: min(conc+1, nparts),
		bufs:    make([][]byte, nparts),
		refs:    make([]atomic.Int32, nparts),
		ready:   make([]chan struct{}, nparts),
	}
	p.free = make(chan []byte, p.maxBufs)
	for i := range p.ready {
		p.ready[i] = make(chan struct{})
	}
	return p
}

func (p *bufParts) reserve(ctx context.Context, n int, size int64) error {
	var buf []byte
	select {
	case buf = <-p.free:
	default:
		if p.made < p.maxBufs {
			p.made++
			buf = make([]byte, size) // parts are in order: only the last one is smaller
			break
		}
		select {
		case buf = <-p.free:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	p.bufs[n-1] = buf[:size]
	holders := int32(1)
	if p.whole {
		holders++
	}
	p.refs[n-1].Store(holders)
	return nil
}

func (p *bufParts) part(n int, off, size int64) (io.ReadSeeker, [sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	buf := p.bufs[n-1]
	got, err := p.r.ReadAt(buf, p.start+off)
	if got == len(buf) {
		err = nil // io.EOF may come with the body's last bytes
	} else if err == nil || err == io.EOF {
		err = shortBody(p.size, off, int64(got))
	}
	if err != nil {
		return nil, sum, err
	}
	sum = sha256.Sum256(buf)
	close(p.ready[n-1])
	return bytes.NewReader(buf), sum, nil
}

func (p *bufParts) sent(n int) { p.release(n) }

// release drops one holder of part n's buffer, and frees the buffer
// after the last one.
func (p *bufParts) release(n int) {
	if p.refs[n-1].Add(-1) == 0 {
		p.free <- p.bufs[n-1][:cap(p.bufs[n-1])]
		p.bufs[n-1] = nil
	}
}

func (p *bufParts) digest(ctx context.Context) (driver.Digest, error) {
	d := driver.NewDigester()
	for i := range p.ready {
		select {
		case <-p.ready[i]:
		case <-ctx.Done():
			return driver.Digest{}, ctx.Err()
		}
		d.Write(p.bufs[i])
		p.release(i + 1)
	}
	return d.Digest(), nil
}

// shortBody is the error for a read at offset off of a body of the
// declared size size that ended after n bytes, short of its part.
func shortBody(size, off, n int64) error {
	return fmt.Errorf("body is shorter than the declared size %d: a read at byte %d ended after %d bytes", size, off, n)
}
