package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// On a backend without uploads in parts (not a driver.PartUploader),
// each upload of a part is an object of its own: a staged version of
// the value's key under the same token, with a stage id of its own, so
// that Collect treats a part left behind as any staged version. Complete
// streams the listed parts, in order, into the value's version object
// (hashing them on the way) and deletes every part object.

// uploadOwnObject uploads part n as an object of its own and deletes
// the object of the part's earlier upload, if any.
func (u *PartUpload) uploadOwnObject(ctx context.Context, n int, body io.Reader, size int64) (*part, error) {
	obj := format.VersionKey(u.c.domain, u.key, u.c.token, newStageID())
	info, err := u.s.b.Put(ctx, obj, driver.ExactReader(body, size), size, driver.PutOptions{Mode: driver.Create{}})
	if err != nil {
		// The put may have landed before its reply was lost.
		u.deleteQuietly(ctx, obj)
		if old := u.forget(n); old != "" {
			u.deleteQuietly(ctx, old)
		}
		return nil, err
	}
	p := &part{size: size, etag: info.ETag, object: obj}
	u.mu.Lock()
	old := u.parts[n]
	u.parts[n] = p
	u.mu.Unlock()
	if old != nil {
		u.deleteQuietly(ctx, old.object)
	}
	return p, nil
}

// deleteQuietly deletes key, even once ctx is done, and logs a failure:
// what it leaves is a staged version that Collect deletes once its
// token is fenced.
func (u *PartUpload) deleteQuietly(ctx context.Context, key string) {
	if err := u.s.b.Delete(context.WithoutCancel(ctx), key); err != nil {
		u.s.opts.Logger.Warn("objstore: deleting a part object failed; Collect deletes it once its token is fenced", "object", key, "err", err)
	}
}

// completeOwnObjects writes the listed parts, in order, into the
// value's version object, and deletes every part object.
func (u *PartUpload) completeOwnObjects(ctx context.Context, listed []*part, total int64) (format.Entry, error) {
	r := &partsReader{ctx: ctx, b: u.s.b, parts: listed}
	defer r.close()
	e, err := u.c.uploadOne(ctx, Change{Key: u.key, Body: r, Size: total}, u.object)
	if err != nil {
		return format.Entry{}, err
	}
	r.close()
	if err := u.discard(ctx); err != nil {
		// The value is whole; what is left is part objects, which
		// Collect deletes once the token is fenced.
		u.s.opts.Logger.Warn("objstore: deleting part objects after completing failed", "object", u.object, "err", err)
	}
	return e, nil
}

// partsReader reads the objects of parts one after the other, each
// opened when the one before it ends, and fails if one's length is not
// its part's size.
type partsReader struct {
	ctx   context.Context
	b     driver.Backend
	parts []*part
	cur   io.ReadCloser
	left  int64 // bytes of the current part still to read
}

func (r *partsReader) Read(p []byte) (int, error) {
	for r.cur == nil {
		if len(r.parts) == 0 {
			return 0, io.EOF
		}
		next := r.parts[0]
		r.parts = r.parts[1:]
		if next.size == 0 {
			continue
		}
		rc, _, err := r.b.Get(r.ctx, next.object, driver.GetOptions{})
		if err != nil {
			return 0, fmt.Errorf("reading part object %q: %w", next.object, err)
		}
		r.cur, r.left = rc, next.size
	}
	n, err := r.cur.Read(p[:min(int64(len(p)), r.left)])
	r.left -= int64(n)
	switch {
	case r.left == 0:
		r.cur.Close()
		r.cur = nil
		if n > 0 {
			return n, nil
		}
		return r.Read(p)
	case errors.Is(err, io.EOF):
		return n, fmt.Errorf("a part object ended %d bytes short of its part's size: %w", r.left, io.ErrUnexpectedEOF)
	}
	return n, err
}

func (r *partsReader) close() {
	if r.cur != nil {
		r.cur.Close()
		r.cur = nil
	}
}
