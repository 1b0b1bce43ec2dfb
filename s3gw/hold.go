package s3gw

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/s3gw/wire"
)

// Small values are held, not staged. A value no larger than the store's
// InlineMax would be kept in the manifest by the commit that publishes
// it, and never have a version object of its own; staging it would write
// one anyway, a request on the write path and an object the commit then
// checks with a HEAD. So the gateway holds such a value in memory, within
// Options.HoldBytes for all of them, and the commit carries its bytes
// (objstore.Change with a Body) as a `fence put` of a small value does:
// one manifest write publishes it, and nothing of it reaches the store
// before the commit. A value held past the budget, or of a length the
// request does not declare, is staged as any other.

// DefaultHoldBytes is Options.HoldBytes when it is zero.
const DefaultHoldBytes = 16 << 20

// holdLimit is the largest value the gateway holds: the store's InlineMax,
// or -1 when it holds none.
func (g *Gateway) holdLimit() int64 {
	if g.o.HoldBytes < 0 {
		return -1
	}
	return g.o.Store.InlineMax()
}

// reserve takes n bytes of the hold budget for a value of n bytes, and
// reports whether the value is to be held.
func (g *Gateway) reserve(n int64) bool {
	if n < 0 || n > g.holdLimit() {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held+n > g.o.HoldBytes {
		return false
	}
	g.held += n
	return true
}

// unreserve gives back what reserve took for n bytes.
func (g *Gateway) unreserve(n int64) {
	g.mu.Lock()
	g.held -= n
	g.mu.Unlock()
}

// keep makes body, of size bytes (-1: unknown), a value of key to
// publish: held when it is small enough and the budget allows, else
// staged in the store. A failed read of the body keeps nothing.
func (g *Gateway) keep(ctx context.Context, key string, body io.Reader, size int64) (*object, error) {
	if !g.reserve(size) {
		rc, err := g.o.Store.Stage(ctx, g.o.Domain, key, g.o.Token, body, size)
		if err != nil {
			return nil, err
		}
		return &object{receipt: rc, n: rc.Size, sha256: rc.SHA256}, nil
	}
	err := g.o.Store.CheckKey(g.o.Domain, key, g.o.Token)
	if err == nil {
		err = g.o.Store.CheckFenced(g.o.Domain, g.o.Token)
	}
	if err != nil {
		g.unreserve(size)
		return nil, err
	}
	data, err := readExact(body, size)
	if err != nil {
		g.unreserve(size)
		return nil, err
	}
	sum := sha256.Sum256(data)
	return &object{held: true, data: data, n: size, sha256: hex.EncodeToString(sum[:])}, nil
}

// readExact reads body to its end, which must come after exactly size
// bytes: reading on to the end is what makes wire check a request
// body's signatures and checksums, and a store reader check the value's.
func readExact(body io.Reader, size int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(size) + 1)
	if _, err := buf.ReadFrom(io.LimitReader(body, size+1)); err != nil {
		return nil, err
	}
	if n := int64(buf.Len()); n != size {
		return nil, wire.Errorf(wire.CodeIncompleteBody, "the body has %d bytes, not the %d it declared", n, size)
	}
	return buf.Bytes(), nil
}

// change is the commit's change that publishes o as key's value.
func (o *object) change(key string) objstore.Change {
	if o.held {
		return objstore.Change{Key: key, Body: bytes.NewReader(o.data), Size: int64(len(o.data))}
	}
	return objstore.PutReceipt(o.receipt)
}

// open reads n bytes of o from offset (n < 0: to the end).
func (o *object) open(ctx context.Context, s *objstore.Store, offset, n int64) (io.ReadCloser, error) {
	if !o.held {
		return s.OpenStaged(ctx, o.receipt, offset, n)
	}
	if offset < 0 || offset > int64(len(o.data)) {
		return nil, fmt.Errorf("s3gw: read of %d bytes at %d of a %d-byte value", n, offset, len(o.data))
	}
	end := int64(len(o.data))
	if n >= 0 {
		end = min(end, offset+n)
	}
	return io.NopCloser(bytes.NewReader(o.data[offset:end])), nil
}

// matches reports whether ver, a committed version of o's key, is the
// one o published: its version object, or for a held value (which had
// none before its commit) its token and bytes.
func (o *object) matches(ver objstore.Version, token uint64) bool {
	if !o.held {
		return o.receipt.Object == ver.Object
	}
	return ver.Token == token && ver.Size == o.n && ver.SHA256 == o.sha256
}

// drop lets go of o, a value that will not be published: a held value
// gives back its budget; a staged one is set aside for Close to discard
// (so that a write costs no request to discard what it replaced). g.mu
// is held.
func (g *Gateway) drop(o *object) {
	if o.held {
		g.held -= o.n
		o.data = nil
		return
	}
	g.dropped = append(g.dropped, o.receipt)
}

// release lets go of o now, outside g.mu: a held value gives back its
// budget, a staged one is discarded from the store (what cannot be, gc
// deletes once a newer token passes it).
func (g *Gateway) release(ctx context.Context, o *object) {
	if o.held {
		g.unreserve(o.n)
		o.data = nil
		return
	}
	g.discard(ctx, o.receipt)
}
