package s3gw

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/s3gw/wire"
)

// A client's multipart upload is one staged value uploaded in parts
// (objstore.Store.StageParts): each UploadPart streams to the store as it
// arrives, and CompleteMultipartUpload makes the value, which is then
// staged or published like a PutObject's.

// maxPartNumber is S3's highest part number.
const maxPartNumber = 10000

// upload is a multipart upload in progress.
type upload struct {
	id, key, s3key string
	initiated      time.Time
	contentType    string
	meta           http.Header
	pu             *objstore.PartUpload

	mu       sync.Mutex
	parts    map[int]partState
	finished *completeMultipartUploadResult // once completed: the answer to a retried Complete
}

type partState struct {
	md5      []byte
	size     int64
	modified time.Time
}

func (g *Gateway) findUpload(q *request) (*upload, *wire.Error) {
	id := q.t.query.Get("uploadId")
	g.mu.Lock()
	u := g.uploads[id]
	g.mu.Unlock()
	if u == nil || u.key != q.t.key {
		return nil, wire.Errorf(wire.CodeNoSuchUpload, "The specified multipart upload does not exist: %q of key %s", id, quote(q.t.s3key))
	}
	return u, nil
}

// createUpload answers CreateMultipartUpload.
func (g *Gateway) createUpload(q *request) {
	done, ok := g.admit(q)
	if !ok {
		return
	}
	defer done()
	pu, err := g.o.Store.StageParts(q.r.Context(), g.o.Domain, q.t.key, g.o.Token)
	if err != nil {
		q.fail(g.storeError("start a multipart upload", err))
		return
	}
	u := &upload{id: newUploadID(), key: q.t.key, s3key: q.t.s3key, initiated: g.o.Now().UTC(), pu: pu, parts: map[int]partState{}}
	u.contentType, u.meta = objectHeaders(q.r.Header)
	g.mu.Lock()
	g.uploads[u.id] = u
	g.mu.Unlock()
	q.xml(initiateMultipartUploadResult{NS: s3NS, Bucket: g.o.Bucket, Key: q.t.s3key, UploadID: u.id})
}

func newUploadID() string {
	return strings.ToLower(newRequestID() + newRequestID())
}

// partRequest admits an UploadPart or UploadPartCopy, and finds its
// upload and its part number; when not ok it has answered.
func (g *Gateway) partRequest(q *request) (done func(), u *upload, n int, ok bool) {
	done, ok = g.admit(q)
	if !ok {
		return nil, nil, 0, false
	}
	u, e := g.findUpload(q)
	if e == nil {
		n, e = partNumber(q)
	}
	if e != nil {
		done()
		q.fail(e)
		return nil, nil, 0, false
	}
	return done, u, n, true
}

// partNumber reads the partNumber parameter.
func partNumber(q *request) (int, *wire.Error) {
	s := q.t.query.Get("partNumber")
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxPartNumber {
		return 0, wire.Errorf(wire.CodeInvalidArgument, "Part number must be an integer between 1 and %d, inclusive: %q", maxPartNumber, s)
	}
	return n, nil
}

// uploadPart answers UploadPart: the part streams to the store.
func (g *Gateway) uploadPart(q *request) {
	done, u, n, ok := g.partRequest(q)
	if !ok {
		return
	}
	defer done()
	body, size, e := q.openBody(g.partETags.bodyOptions())
	if e != nil {
		q.fail(e)
		return
	}
	if size < 0 {
		q.fail(wire.Errorf(wire.CodeMissingContentLength, "You must provide the Content-Length HTTP header of a part"))
		return
	}
	if e := g.stillWriting(); e != nil {
		q.fail(e)
		return
	}
	info, err := u.pu.UploadPart(q.r.Context(), n, &checkedBody{b: body, left: size}, size)
	if err != nil {
		if berr := body.Err(); berr != nil {
			q.fail(wire.AsError(berr))
		} else {
			q.fail(g.partsError(err))
		}
		return
	}
	computed, hashed := body.MD5()
	sum, ok := g.partETags.md5Of(computed, hashed, info.ETag)
	if !ok {
		// The store's ETag of this part is not its MD5, which the
		// gateway did not compute: a 500, which clients retry, and
		// the retry is hashed. The retried part replaces this one.
		q.fail(wire.Errorf(wire.CodeInternalError, "fence: the store's ETag of part %d is not an MD5; send the part again", n))
		return
	}
	u.mu.Lock()
	u.parts[n] = partState{md5: sum, size: size, modified: g.o.Now().UTC()}
	u.mu.Unlock()
	h := q.w.Header()
	h.Set("ETag", `"`+hex.EncodeToString(sum)+`"`)
	if c, ok := body.Checksum(); ok {
		h.Set(c.Algorithm.Header(), c.Value)
	}
	q.w.WriteHeader(http.StatusOK)
}

// uploadPartCopy answers UploadPartCopy: a range of a key of the domain,
// as the job sees it, becomes a part.
func (g *Gateway) uploadPartCopy(q *request) {
	done, u, n, ok := g.partRequest(q)
	if !ok {
		return
	}
	defer done()
	src, e := g.copySource(q)
	if e != nil {
		q.fail(e)
		return
	}
	offset, size := int64(0), src.size
	if rs := q.r.Header.Get("X-Amz-Copy-Source-Range"); rs != "" {
		var ranged bool
		offset, size, ranged, e = parseRange(rs, src.size)
		if e == nil && !ranged {
			e = wire.Errorf(wire.CodeInvalidArgument, "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy: %q", rs)
		}
		if e != nil {
			q.fail(e)
			return
		}
	}
	ctx := q.r.Context()
	rc, err := src.open(ctx, g.o.Store, offset, size)
	if err != nil {
		q.fail(g.storeError("read the copy's source", err))
		return
	}
	defer rc.Close()
	body := newMD5Reader(rc)
	if _, err := u.pu.UploadPart(ctx, n, body, size); err != nil {
		q.fail(g.partsError(err))
		return
	}
	sum := body.h.Sum(nil)
	now := g.o.Now().UTC()
	u.mu.Lock()
	u.parts[n] = partState{md5: sum, size: size, modified: now}
	u.mu.Unlock()
	q.xml(copyPartResult{NS: s3NS, LastModified: now.Format(timeFormat), ETag: `"` + hex.EncodeToString(sum) + `"`})
}

// completeUpload answers CompleteMultipartUpload: the listed parts, in
// order, become the key's value, staged or published as a put's.
func (g *Gateway) completeUpload(q *request) {
	done, ok := g.admit(q)
	if !ok {
		return
	}
	defer done()
	u, e := g.findUpload(q)
	if e != nil {
		q.fail(e)
		return
	}
	var req completeRequest
	if e := q.readXML(&req); e != nil {
		q.fail(e)
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.finished != nil { // a retry of a Complete whose answer was lost
		q.xml(*u.finished)
		return
	}
	nums, etag, e := u.check(req)
	if e != nil {
		q.fail(e)
		return
	}
	ctx := q.r.Context()
	if e := g.stillWriting(); e != nil {
		q.fail(e)
		return
	}
	receipt, err := u.pu.Complete(ctx, nums)
	if err != nil {
		q.fail(g.partsError(err))
		return
	}
	obj := &object{receipt: receipt, n: receipt.Size, sha256: receipt.SHA256, etag: etag, contentType: u.contentType, meta: u.meta, modified: g.o.Now().UTC()}
	if e := g.publish(ctx, u.key, obj); e != nil {
		q.fail(e)
		return
	}
	u.finished = &completeMultipartUploadResult{NS: s3NS, Location: "/" + g.o.Bucket + "/" + u.s3key, Bucket: g.o.Bucket, Key: u.s3key, ETag: `"` + etag + `"`}
	q.xml(*u.finished)
}

// check validates a Complete's part list against the parts uploaded, as
// S3 does, and returns the part numbers and the upload's ETag (the MD5
// of the parts' MD5s, then "-" and their count). u.mu is held.
func (u *upload) check(req completeRequest) ([]int, string, *wire.Error) {
	if len(req.Parts) == 0 {
		return nil, "", wire.Errorf(wire.CodeMalformedXML, "You must specify at least one part")
	}
	nums := make([]int, len(req.Parts))
	all := md5.New()
	for i, p := range req.Parts {
		if i > 0 && p.PartNumber <= nums[i-1] {
			return nil, "", wire.Errorf(wire.CodeInvalidPartOrder, "The list of parts was not in ascending order: part %d follows part %d", p.PartNumber, nums[i-1])
		}
		nums[i] = p.PartNumber
		st, ok := u.parts[p.PartNumber]
		if !ok || strings.Trim(p.ETag, `"`) != hex.EncodeToString(st.md5) {
			return nil, "", wire.Errorf(wire.CodeInvalidPart, "One or more of the specified parts could not be found or its entity tag did not match: part %d", p.PartNumber)
		}
		all.Write(st.md5)
	}
	for _, n := range nums[:len(nums)-1] {
		if st := u.parts[n]; st.size < objstore.MinPartSize {
			return nil, "", wire.Errorf(wire.CodeEntityTooSmall, "Your proposed upload is smaller than the minimum allowed object size: part %d has %d bytes; every part but the last needs at least %d", n, st.size, objstore.MinPartSize)
		}
	}
	return nums, fmt.Sprintf("%s-%d", hex.EncodeToString(all.Sum(nil)), len(nums)), nil
}

// partsError answers a failed Complete.
func (g *Gateway) partsError(err error) *wire.Error {
	switch {
	case errors.Is(err, objstore.ErrInvalidPart):
		return wire.Errorf(wire.CodeInvalidPart, "fence: %v", err)
	case errors.Is(err, objstore.ErrInvalidPartOrder):
		return wire.Errorf(wire.CodeInvalidPartOrder, "fence: %v", err)
	case errors.Is(err, objstore.ErrPartTooSmall):
		return wire.Errorf(wire.CodeEntityTooSmall, "fence: %v", err)
	case errors.Is(err, objstore.ErrNoSuchUpload):
		return wire.Errorf(wire.CodeNoSuchUpload, "fence: %v", err)
	}
	return g.storeError("complete a multipart upload", err)
}

// abortUpload answers AbortMultipartUpload: nothing of it stays staged.
func (g *Gateway) abortUpload(q *request) {
	u, e := g.findUpload(q)
	if e != nil {
		q.fail(e)
		return
	}
	g.mu.Lock()
	delete(g.uploads, u.id)
	g.mu.Unlock()
	u.mu.Lock()
	finished := u.finished != nil
	u.mu.Unlock()
	if !finished {
		if err := u.pu.Abort(q.r.Context()); err != nil {
			q.fail(g.storeError("abort a multipart upload", err))
			return
		}
	}
	q.w.WriteHeader(http.StatusNoContent)
}

// listParts answers ListParts.
func (g *Gateway) listParts(q *request) {
	u, e := g.findUpload(q)
	if e != nil {
		q.fail(e)
		return
	}
	marker, _ := strconv.Atoi(q.t.query.Get("part-number-marker"))
	max := 1000
	if s := q.t.query.Get("max-parts"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			max = min(n, 1000)
		}
	}
	u.mu.Lock()
	nums := slices.Sorted(func(yield func(int) bool) {
		for n := range u.parts {
			if n > marker && !yield(n) {
				return
			}
		}
	})
	res := listPartsResult{NS: s3NS, Bucket: g.o.Bucket, Key: u.s3key, UploadID: u.id, Initiator: owner, Owner: owner,
		StorageClass: "STANDARD", PartNumberMarker: marker, MaxParts: max}
	for _, n := range nums {
		if len(res.Parts) == max {
			res.IsTruncated = true
			break
		}
		st := u.parts[n]
		res.Parts = append(res.Parts, partXML{PartNumber: n, LastModified: st.modified.Format(timeFormat), ETag: `"` + hex.EncodeToString(st.md5) + `"`, Size: st.size})
		res.NextPartNumberMarker = n
	}
	u.mu.Unlock()
	q.xml(res)
}

// listUploads answers ListMultipartUploads: the uploads in progress.
func (g *Gateway) listUploads(q *request) {
	prefix := q.t.query.Get("prefix")
	g.mu.Lock()
	res := listMultipartUploadsResult{NS: s3NS, Bucket: g.o.Bucket, MaxUploads: 1000}
	for _, u := range g.uploads {
		u.mu.Lock()
		finished := u.finished != nil
		u.mu.Unlock()
		if !finished && strings.HasPrefix(u.s3key, prefix) {
			res.Uploads = append(res.Uploads, uploadXML{Key: u.s3key, UploadID: u.id, Initiator: owner, Owner: owner, StorageClass: "STANDARD", Initiated: u.initiated.Format(timeFormat)})
		}
	}
	g.mu.Unlock()
	slices.SortFunc(res.Uploads, func(a, b uploadXML) int {
		return strings.Compare(a.Key+"\x00"+a.UploadID, b.Key+"\x00"+b.UploadID)
	})
	q.xml(res)
}
