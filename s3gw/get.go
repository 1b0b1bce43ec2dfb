package s3gw

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fencedstore/fence/s3gw/wire"
)

// getObject answers GetObject and HeadObject: the key as the job sees it
// (its staged value, else the committed one), whole or one byte range,
// with S3's conditional headers.
func (g *Gateway) getObject(q *request) {
	if _, ok := q.t.query["partNumber"]; ok {
		q.fail(wire.Errorf(wire.CodeNotImplemented, "fence: the gateway does not serve reads by partNumber; read a byte range instead"))
		return
	}
	ctx := q.r.Context()
	v, e := g.lookup(ctx, q.t.key)
	if e != nil {
		q.fail(e)
		return
	}
	if status := conditional(q.r.Header, v.etag, v.modified); status != 0 {
		if status == http.StatusNotModified {
			q.w.Header().Set("ETag", `"`+v.etag+`"`)
			q.w.WriteHeader(status)
			return
		}
		q.fail(wire.Errorf(wire.CodePreconditionFailed, "At least one of the pre-conditions you specified did not hold"))
		return
	}
	offset, n, ranged, e := parseRange(q.r.Header.Get("Range"), v.size)
	if e != nil {
		q.w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", v.size))
		q.fail(e)
		return
	}
	h := q.w.Header()
	h.Set("ETag", `"`+v.etag+`"`)
	h.Set("Last-Modified", v.modified.UTC().Format(http.TimeFormat))
	h.Set("Content-Type", v.contentType)
	h.Set("Accept-Ranges", "bytes")
	for name, vs := range v.meta {
		h[name] = vs
	}
	if !ranged && strings.EqualFold(q.r.Header.Get("X-Amz-Checksum-Mode"), "ENABLED") {
		for name, val := range checksumHeaders(v) {
			h.Set(name, val)
		}
	}
	for param, header := range responseOverrides {
		if val := q.t.query.Get(param); val != "" {
			h.Set(header, val)
		}
	}
	h.Set("Content-Length", strconv.FormatInt(n, 10))
	status := http.StatusOK
	if ranged {
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", offset, offset+n-1, v.size))
		status = http.StatusPartialContent
	}
	if q.r.Method == http.MethodHead {
		q.w.WriteHeader(status)
		return
	}
	rc, err := v.open(ctx, g.o.Store, offset, n)
	if err != nil {
		q.fail(g.storeError("read", err))
		return
	}
	defer rc.Close()
	q.w.WriteHeader(status)
	if _, err := io.Copy(q.w, rc); err != nil {
		// The status is sent: cut the connection, so that the client
		// sees a short body, never bytes that failed their check.
		g.o.Logger.Warn("s3gw: read failed after the response started", "key", q.t.s3key, "err", err)
		panic(http.ErrAbortHandler)
	}
}

// responseOverrides are GetObject's query parameters that set a header
// of the response (presigned URLs use them).
var responseOverrides = map[string]string{
	"response-content-type":        "Content-Type",
	"response-content-language":    "Content-Language",
	"response-expires":             "Expires",
	"response-cache-control":       "Cache-Control",
	"response-content-disposition": "Content-Disposition",
	"response-content-encoding":    "Content-Encoding",
}

// checksumHeaders are the x-amz-checksum-* headers of a whole-object
// read: the checksum the client sent with it, and the SHA-256 fence
// keeps of every value.
func checksumHeaders(v *view) map[string]string {
	out := map[string]string{}
	if v.checksum.Algorithm != "" {
		out[v.checksum.Algorithm.Header()] = v.checksum.Value
	}
	sha := v.version.SHA256
	if v.staged != nil {
		sha = v.staged.sha256
	}
	if raw, err := hex.DecodeString(sha); err == nil && len(raw) == 32 {
		out[wire.SHA256.Header()] = base64.StdEncoding.EncodeToString(raw)
	}
	return out
}

// conditional applies S3's GET and HEAD conditions: 412 when If-Match
// or If-Unmodified-Since fails, 304 when If-None-Match or
// If-Modified-Since does, 0 to answer.
func conditional(h http.Header, etag string, modified time.Time) int {
	modified = modified.Truncate(time.Second)
	im, inm := h.Get("If-Match"), h.Get("If-None-Match")
	if im != "" && !etagMatches(im, etag) {
		return http.StatusPreconditionFailed
	}
	if t, err := http.ParseTime(h.Get("If-Unmodified-Since")); im == "" && err == nil && modified.After(t) {
		return http.StatusPreconditionFailed
	}
	if inm != "" && etagMatches(inm, etag) {
		return http.StatusNotModified
	}
	if t, err := http.ParseTime(h.Get("If-Modified-Since")); inm == "" && err == nil && !modified.After(t) {
		return http.StatusNotModified
	}
	return 0
}

// parseRange reads a Range header of one byte range of a value of size
// bytes: the offset and length to send and whether it is a range. A
// header that is not one well-formed byte range is ignored, as S3 does;
// one that starts past the end is InvalidRange.
func parseRange(s string, size int64) (offset, n int64, ranged bool, e *wire.Error) {
	spec, ok := strings.CutPrefix(strings.TrimSpace(s), "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return 0, size, false, nil
	}
	first, last, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return 0, size, false, nil
	}
	unsatisfiable := wire.Errorf(wire.CodeInvalidRange, "The requested range is not satisfiable: %q of %d bytes", s, size)
	if first == "" { // the last N bytes
		k, err := strconv.ParseInt(last, 10, 64)
		if err != nil || k < 0 {
			return 0, size, false, nil
		}
		if k == 0 {
			return 0, 0, false, unsatisfiable
		}
		k = min(k, size)
		return size - k, k, true, nil
	}
	a, err := strconv.ParseInt(first, 10, 64)
	if err != nil || a < 0 {
		return 0, size, false, nil
	}
	b := size - 1
	if last != "" {
		if b, err = strconv.ParseInt(last, 10, 64); err != nil || b < a {
			return 0, size, false, nil
		}
		b = min(b, size-1)
	}
	if a >= size {
		return 0, 0, false, unsatisfiable
	}
	return a, b - a + 1, true, nil
}
