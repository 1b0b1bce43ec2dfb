package s3gw

import (
	"crypto/md5"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/fencedstore/fence/s3gw/wire"
)

// copySource reads x-amz-copy-source ("[/]BUCKET/KEY", URL-encoded) and
// returns the source as the job sees it. The source must be in the
// gateway's bucket and the job's domain.
func (g *Gateway) copySource(q *request) (*view, *wire.Error) {
	raw := q.r.Header.Get("X-Amz-Copy-Source")
	src, version, _ := strings.Cut(raw, "?")
	if version != "" && !strings.HasPrefix(version, "versionId=null") {
		return nil, wire.Errorf(wire.CodeNotImplemented, "fence: the gateway keeps no S3 versions: %q", raw)
	}
	src, err := url.PathUnescape(src)
	if err != nil {
		return nil, wire.Errorf(wire.CodeInvalidArgument, "x-amz-copy-source %q is not well formed: %v", raw, err)
	}
	bucket, s3key, ok := strings.Cut(strings.TrimPrefix(src, "/"), "/")
	if !ok || s3key == "" {
		return nil, wire.Errorf(wire.CodeInvalidArgument, "x-amz-copy-source %q must name a bucket and a key", raw)
	}
	if e := g.checkBucket(bucket); e != nil {
		return nil, e
	}
	key, e := g.domainKey(s3key)
	if e != nil {
		return nil, e
	}
	v, e := g.lookup(q.r.Context(), key)
	if e != nil {
		return nil, e
	}
	h := q.r.Header
	if status := conditional(http.Header{
		"If-Match":            h.Values("X-Amz-Copy-Source-If-Match"),
		"If-None-Match":       h.Values("X-Amz-Copy-Source-If-None-Match"),
		"If-Modified-Since":   h.Values("X-Amz-Copy-Source-If-Modified-Since"),
		"If-Unmodified-Since": h.Values("X-Amz-Copy-Source-If-Unmodified-Since"),
	}, v.etag, v.modified); status != 0 {
		return nil, wire.Errorf(wire.CodePreconditionFailed, "At least one of the pre-conditions you specified did not hold")
	}
	return v, nil
}

// md5Reader computes the MD5 of what is read through it: the ETag of a
// copy.
type md5Reader struct {
	r io.Reader
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
}

func newMD5Reader(r io.Reader) *md5Reader { return &md5Reader{r: r, h: md5.New()} }

func (m *md5Reader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.h.Write(p[:n])
	return n, err
}

func (m *md5Reader) etag() string { return hex.EncodeToString(m.h.Sum(nil)) }

// copyObject answers CopyObject within the domain: the source's bytes,
// as the job sees them, are staged as the destination's value, read and
// written through the gateway (fence's version objects are write-once
// and named by their key, so a copy is a new version object).
func (g *Gateway) copyObject(q *request) {
	done, ok := g.admit(q)
	if !ok {
		return
	}
	defer done()
	src, e := g.copySource(q)
	if e != nil {
		q.fail(e)
		return
	}
	if e := g.checkPreconditions(q); e != nil {
		q.fail(e)
		return
	}
	ctx := q.r.Context()
	rc, err := src.open(ctx, g.o.Store, 0, -1)
	if err != nil {
		q.fail(g.storeError("read the copy's source", err))
		return
	}
	defer rc.Close()
	body := newMD5Reader(rc)
	obj, err := g.keep(ctx, q.t.key, body, src.size)
	if err != nil {
		q.fail(g.storeError("copy", err))
		return
	}
	obj.etag, obj.modified = body.etag(), g.o.Now().UTC()
	if strings.EqualFold(q.r.Header.Get("X-Amz-Metadata-Directive"), "REPLACE") {
		obj.contentType, obj.meta = objectHeaders(q.r.Header)
	} else {
		obj.contentType, obj.meta = src.contentType, src.meta
	}
	if e := g.publish(ctx, q.t.key, obj); e != nil {
		q.fail(e)
		return
	}
	q.xml(copyObjectResult{NS: s3NS, LastModified: obj.modified.Format(timeFormat), ETag: `"` + obj.etag + `"`})
}
