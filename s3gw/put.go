package s3gw

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/s3gw/wire"
)

// MaxPutSize is the largest body one PutObject or UploadPart takes, as
// S3's limit: 5 GiB.
const MaxPutSize = 5 << 30

// openBody opens the request's body through wire (every payload mode,
// every checksum) and returns its exact length, or -1 when the client
// did not say.
func (q *request) openBody(opts wire.BodyOptions) (*wire.Body, int64, *wire.Error) {
	b, err := wire.OpenBody(q.r, q.auth, opts)
	if err != nil {
		return nil, 0, wire.AsError(err)
	}
	size := q.r.ContentLength
	if v := q.r.Header.Get("X-Amz-Decoded-Content-Length"); v != "" && strings.HasPrefix(q.auth.PayloadHash, "STREAMING-") {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, 0, wire.Errorf(wire.CodeInvalidArgument, "x-amz-decoded-content-length %q is not a byte count", v)
		}
		size = n
	}
	if size > MaxPutSize {
		return nil, 0, wire.Errorf("EntityTooLarge", "your proposed upload of %d bytes exceeds the maximum allowed size of %d", size, int64(MaxPutSize))
	}
	return b, size, nil
}

// checkedBody is a request body as a store upload of size bytes reads
// it: the Read that returns the last byte also reads on to the body's
// end, where wire checks the body's signatures, length and checksums, so
// that a failed check fails a Read the upload sees, and the store keeps
// nothing of it. (An upload of a known size may stop reading once it
// has its bytes, and never see the body's end.)
type checkedBody struct {
	b    *wire.Body
	left int64 // -1 when the size is unknown
}

func (c *checkedBody) Read(p []byte) (int, error) {
	if c.left == 0 {
		return c.end(0)
	}
	if c.left > 0 && int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.b.Read(p)
	if c.left > 0 {
		c.left -= int64(n)
		if err == nil && c.left == 0 {
			return c.end(n)
		}
	}
	return n, err
}

// end reads past the last byte: io.EOF if every check held.
func (c *checkedBody) end(n int) (int, error) {
	var one [1]byte
	m, err := c.b.Read(one[:])
	if m > 0 {
		return n, wire.Errorf(wire.CodeIncompleteBody, "the body is longer than its declared length")
	}
	if err == nil {
		return c.end(n)
	}
	return n, err
}

// bodyError is the S3 error of a failed upload: the body's own failure
// (a checksum, a signature, a short body) when it failed, else the
// store's.
func (g *Gateway) bodyError(b *wire.Body, what string, err error) *wire.Error {
	if berr := b.Err(); berr != nil {
		return wire.AsError(berr)
	}
	return g.storeError(what, err)
}

// keptHeaders are the request headers S3 stores with an object and
// returns on GET and HEAD, besides x-amz-meta-*.
var keptHeaders = []string{"Cache-Control", "Content-Disposition", "Content-Language", "Expires"}

// objectHeaders returns the metadata a write's request sets: its
// content type, and the headers S3 keeps.
func objectHeaders(h http.Header) (contentType string, meta http.Header) {
	contentType = h.Get("Content-Type")
	if contentType == "" {
		contentType = "binary/octet-stream"
	}
	meta = http.Header{}
	for name, vs := range h {
		if strings.HasPrefix(strings.ToLower(name), "x-amz-meta-") {
			meta[name] = vs
		}
	}
	for _, name := range keptHeaders {
		if v := h.Get(name); v != "" {
			meta.Set(name, v)
		}
	}
	if enc := wire.StoredContentEncoding(h); enc != "" {
		meta.Set("Content-Encoding", enc)
	}
	return contentType, meta
}

// putObject stages the body as the key's value (PutObject).
func (g *Gateway) putObject(q *request) {
	done, ok := g.admit(q)
	if !ok {
		return
	}
	defer done()
	if e := g.checkPreconditions(q); e != nil {
		q.fail(e)
		return
	}
	body, size, e := q.openBody(wire.BodyOptions{})
	if e != nil {
		q.fail(e)
		return
	}
	ctx := q.r.Context()
	obj, err := g.keep(ctx, q.t.key, &checkedBody{b: body, left: size}, size)
	if err != nil {
		q.fail(g.bodyError(body, "put", err))
		return
	}
	sum, _ := body.MD5()
	obj.etag, obj.modified = hex.EncodeToString(sum), g.o.Now().UTC()
	obj.contentType, obj.meta = objectHeaders(q.r.Header)
	if c, ok := body.Checksum(); ok {
		obj.checksum = c
	}
	if e := g.publish(ctx, q.t.key, obj); e != nil {
		q.fail(e)
		return
	}
	h := q.w.Header()
	h.Set("ETag", `"`+obj.etag+`"`)
	if obj.checksum.Algorithm != "" {
		h.Set(obj.checksum.Algorithm.Header(), obj.checksum.Value)
	}
	q.w.WriteHeader(http.StatusOK)
}

// checkPreconditions honours a write's If-None-Match: * (create only if
// absent) and If-Match, against the key as the job sees it.
func (g *Gateway) checkPreconditions(q *request) *wire.Error {
	inm, im := q.r.Header.Get("If-None-Match"), q.r.Header.Get("If-Match")
	if inm == "" && im == "" {
		return nil
	}
	v, e := g.lookup(q.r.Context(), q.t.key)
	if e != nil && e.Code != wire.CodeNoSuchKey {
		return e
	}
	switch {
	case inm == "*" && v != nil:
		return wire.Errorf(wire.CodePreconditionFailed, "At least one of the pre-conditions you specified did not hold: the key exists")
	case inm != "" && inm != "*":
		return wire.Errorf(wire.CodeNotImplemented, "fence: If-None-Match on a write takes * only")
	case im != "" && v == nil:
		return noSuchKey(q.t.s3key)
	case im != "" && !etagMatches(im, v.etag):
		return wire.Errorf(wire.CodePreconditionFailed, "At least one of the pre-conditions you specified did not hold: If-Match")
	}
	return nil
}

// publish makes obj the key's value: kept until the end (replacing,
// and letting go of, what the job wrote for it before), or committed now.
func (g *Gateway) publish(ctx context.Context, key string, obj *object) *wire.Error {
	if e := g.stillWriting(); e != nil {
		g.release(ctx, obj)
		return e
	}
	if g.o.Commit == CommitEach {
		_, err := g.o.Store.Commit(ctx, g.o.Domain, g.o.Token, []objstore.Change{obj.change(key)}, &objstore.CommitOptions{Holder: g.o.Holder})
		switch {
		case obj.held:
			g.release(ctx, obj) // its bytes are in the commit, or nowhere
		case err != nil && !errors.Is(err, objstore.ErrOutcomeUnknown):
			g.discard(ctx, obj.receipt)
		}
		if err != nil {
			return g.storeError("commit", err)
		}
		g.mu.Lock()
		g.known[key] = obj
		g.mu.Unlock()
		return nil
	}
	g.mu.Lock()
	if old := g.staged[key]; old != nil {
		g.drop(old)
	}
	g.staged[key] = obj
	delete(g.deleted, key)
	g.mu.Unlock()
	return nil
}

// discard deletes, now, a staged value that will not be published (one
// the gateway refused to keep); what it cannot delete, gc deletes once a
// newer token passes it. Values a later write replaced wait for Close,
// so that a write costs no request to discard them.
func (g *Gateway) discard(ctx context.Context, r objstore.Receipt) {
	if err := g.o.Store.DiscardStaged(context.WithoutCancel(ctx), r); err != nil {
		g.o.Logger.Info("s3gw: could not discard a staged value; gc deletes it once a newer token passes it", "key", r.Key, "object", r.Object, "err", err)
	}
}

// etagMatches reports whether an If-Match or If-None-Match list names
// etag (or is *).
func etagMatches(list, etag string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		t = strings.TrimPrefix(t, "W/")
		if t == "*" || strings.Trim(t, `"`) == etag {
			return true
		}
	}
	return false
}

var _ io.Reader = (*checkedBody)(nil)
