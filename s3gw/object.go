package s3gw

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/s3gw/wire"
)

// object is what the gateway knows of a value it wrote: its receipt (the
// staged version object), or its bytes when it is held until the commit
// (see hold.go), and what S3 returns of it that fence's manifest does not
// keep (the ETag clients compare with their MD5, the content type, user
// metadata, the checksum the client sent).
type object struct {
	receipt     objstore.Receipt // when not held
	held        bool
	data        []byte // a held value's bytes, until it is published or dropped
	n           int64  // the value's length
	sha256      string // the value's SHA-256, lower-case hex
	etag        string // unquoted: hex MD5, or hex MD5 of part MD5s "-N"
	contentType string
	meta        http.Header // x-amz-meta-* and the standard headers S3 keeps
	checksum    wire.Checksum
	modified    time.Time
}

// view is one key as a read sees it: a value the job staged, or the
// domain's committed one.
type view struct {
	key         string
	size        int64
	etag        string
	modified    time.Time
	contentType string
	meta        http.Header
	checksum    wire.Checksum // "" Algorithm when none
	staged      *object
	snap        *objstore.Snapshot
	version     objstore.Version
}

// open reads n bytes from offset (n < 0: to the end). Reading the whole
// value verifies its checksums; a range verifies its length.
func (v *view) open(ctx context.Context, s *objstore.Store, offset, n int64) (io.ReadCloser, error) {
	if v.staged != nil {
		return v.staged.open(ctx, s, offset, n)
	}
	if offset == 0 && (n < 0 || n == v.size) {
		return v.snap.Get(ctx, v.key)
	}
	return v.snap.NewRangeReader(ctx, v.key, offset, n)
}

// lookup returns key as the job sees it: its staged value, nothing if it
// deleted it, else the domain's committed value. A missing key is
// NoSuchKey.
func (g *Gateway) lookup(ctx context.Context, key string) (*view, *wire.Error) {
	g.mu.Lock()
	st, staged := g.staged[key]
	_, deleted := g.deleted[key]
	known := g.known[key]
	g.mu.Unlock()
	if staged {
		return st.view(key), nil
	}
	if deleted {
		return nil, noSuchKey(g.o.KeyPrefix + key)
	}
	sn, err := g.o.Store.Snapshot(ctx, g.o.Domain)
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, noSuchKey(g.o.KeyPrefix + key)
	}
	if err != nil {
		return nil, g.storeError("read", err)
	}
	ver, err := sn.Version(ctx, key)
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, noSuchKey(g.o.KeyPrefix + key)
	}
	if err != nil {
		return nil, g.storeError("read", err)
	}
	v := committedView(ver, known, g.o.Token)
	v.snap = sn
	return v, nil
}

// committedView describes a committed version; known, when it is the
// object this gateway published for it at token, adds what S3 returns
// of it.
func committedView(ver objstore.Version, known *object, token uint64) *view {
	v := &view{key: ver.Key, size: ver.Size, modified: ver.Committed, version: ver,
		etag: derivedETag(ver), contentType: "binary/octet-stream"}
	if known != nil && known.matches(ver, token) {
		v.etag, v.contentType, v.meta, v.checksum = known.etag, known.contentType, known.meta, known.checksum
	}
	return v
}

// derivedETag is the ETag of a committed value the gateway did not write
// in this run: fence keeps no MD5, so it is made from the SHA-256, in
// the form of a multipart ETag ("-1"), which clients never compare with
// an MD5 of the bytes.
func derivedETag(v objstore.Version) string {
	h := v.SHA256
	if len(h) > 32 {
		h = h[:32]
	}
	return h + "-1"
}

func (o *object) view(key string) *view {
	return &view{key: key, size: o.n, etag: o.etag, modified: o.modified,
		contentType: o.contentType, meta: o.meta, checksum: o.checksum, staged: o}
}

func noSuchKey(s3key string) *wire.Error {
	return wire.Errorf(wire.CodeNoSuchKey, "The specified key does not exist: %s", quote(s3key))
}

// storeError answers a failure of the store: a fenced write says the
// lease was lost, a store that cannot be reached or fails says so (503,
// which clients retry), anything else is the store's error, named.
func (g *Gateway) storeError(what string, err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	g.o.Logger.Warn("s3gw: store "+what+" failed", "domain", g.o.Domain, "err", err)
	switch {
	case errors.Is(err, objstore.ErrFenced):
		g.LeaseLost(err)
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.stopError()
	case errors.Is(err, objstore.ErrInvalid):
		return wire.Errorf(wire.CodeInvalidArgument, "fence: %v", err)
	case errors.Is(err, context.Canceled):
		return wire.Errorf(wire.CodeInternalError, "fence: %s cancelled: %v", what, err)
	}
	return &wire.Error{Code: wire.CodeServiceUnavailable, Status: http.StatusServiceUnavailable,
		Message: fmt.Sprintf("fence: %s in domain %q failed in the store: %s", what, g.o.Domain, oneLine(err))}
}

func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
