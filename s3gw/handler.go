package s3gw

import (
	"encoding/xml"
	"net/http"

	"github.com/fencedstore/fence/s3gw/wire"
)

// request is one request being answered.
type request struct {
	w    http.ResponseWriter
	r    *http.Request
	id   string
	auth *wire.Auth
	t    target
}

// fail answers with e.
func (q *request) fail(e *wire.Error) {
	wire.WriteError(q.w, q.r, e, q.id)
}

// xml answers 200 with v as S3's XML.
func (q *request) xml(v any) {
	body, err := xml.Marshal(v)
	if err != nil {
		q.fail(wire.AsError(err))
		return
	}
	q.w.Header().Set("Content-Type", "application/xml")
	q.w.WriteHeader(http.StatusOK)
	_, _ = q.w.Write([]byte(xml.Header))
	_, _ = q.w.Write(body)
}

// ServeHTTP answers one S3 request.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := &request{w: w, r: r, id: newRequestID()}
	w.Header().Set("X-Amz-Request-Id", q.id)
	w.Header().Set("Server", "fence")
	t, e := g.parseTarget(r)
	if e != nil {
		q.fail(e)
		return
	}
	q.t = t
	auth, err := g.v.Verify(r)
	if err != nil {
		g.o.Logger.Info("s3gw: request refused", "method", r.Method, "path", r.URL.Path, "err", err)
		q.fail(wire.AsError(err))
		return
	}
	q.auth = auth
	if t.bucket == "" {
		if r.Method != http.MethodGet {
			q.fail(wire.Errorf(wire.CodeMethodNotAllowed, "the service supports GET (ListBuckets) only"))
			return
		}
		g.listBuckets(q)
		return
	}
	if e := g.checkBucket(t.bucket); e != nil {
		q.fail(e)
		return
	}
	if t.s3key == "" {
		g.bucketRequest(q)
		return
	}
	key, e := g.domainKey(t.s3key)
	if e != nil {
		q.fail(e)
		return
	}
	q.t.key = key
	g.objectRequest(q)
}

// unsupported lists the subresources the gateway does not serve: a
// request for one is refused with NotImplemented rather than taken as a
// plain read or write of the key.
var unsupported = []string{"acl", "tagging", "retention", "legal-hold", "torrent", "restore", "select", "attributes", "versionId", "versions", "policy", "lifecycle", "cors", "website", "encryption", "replication", "notification", "object-lock", "logging", "ownershipControls", "publicAccessBlock", "accelerate", "requestPayment", "analytics", "inventory", "metrics", "intelligent-tiering"}

func (q *request) unsupported() (string, bool) {
	for _, s := range unsupported {
		if _, ok := q.t.query[s]; ok {
			return s, true
		}
	}
	return "", false
}

func (g *Gateway) bucketRequest(q *request) {
	has := func(k string) bool { _, ok := q.t.query[k]; return ok }
	switch m := q.r.Method; {
	case m == http.MethodHead:
		q.w.WriteHeader(http.StatusOK)
	case m == http.MethodGet && has("location"):
		g.bucketLocation(q)
	case m == http.MethodGet && has("versioning"):
		q.xml(versioningConfiguration{NS: s3NS})
	case m == http.MethodGet && has("acl"):
		q.xml(newACL())
	case m == http.MethodGet && has("uploads"):
		g.listUploads(q)
	case m == http.MethodGet && q.t.query.Get("list-type") == "2":
		g.listObjects(q, 2)
	case m == http.MethodGet:
		if s, ok := q.unsupported(); ok {
			q.fail(wire.Errorf(wire.CodeNotImplemented, "fence: the gateway does not serve the %q subresource", s))
			return
		}
		g.listObjects(q, 1)
	case m == http.MethodPost && has("delete"):
		g.deleteObjects(q)
	case m == http.MethodPut && len(q.t.query) == 0:
		// CreateBucket of the gateway's own bucket: it exists.
		q.w.WriteHeader(http.StatusOK)
	default:
		q.fail(wire.Errorf(wire.CodeNotImplemented, "fence: the gateway does not serve %s on a bucket with query %q", q.r.Method, q.r.URL.RawQuery))
	}
}

func (g *Gateway) objectRequest(q *request) {
	if s, ok := q.unsupported(); ok {
		q.fail(wire.Errorf(wire.CodeNotImplemented, "fence: the gateway does not serve the %q subresource", s))
		return
	}
	has := func(k string) bool { _, ok := q.t.query[k]; return ok }
	copySource := q.r.Header.Get("X-Amz-Copy-Source") != ""
	switch m := q.r.Method; {
	case m == http.MethodGet && has("uploadId"):
		g.listParts(q)
	case m == http.MethodGet || m == http.MethodHead:
		g.getObject(q)
	case m == http.MethodPut && has("uploadId") && copySource:
		g.uploadPartCopy(q)
	case m == http.MethodPut && has("uploadId"):
		g.uploadPart(q)
	case m == http.MethodPut && copySource:
		g.copyObject(q)
	case m == http.MethodPut:
		g.putObject(q)
	case m == http.MethodPost && has("uploads"):
		g.createUpload(q)
	case m == http.MethodPost && has("uploadId"):
		g.completeUpload(q)
	case m == http.MethodDelete && has("uploadId"):
		g.abortUpload(q)
	case m == http.MethodDelete:
		g.deleteObject(q)
	default:
		q.fail(wire.Errorf(wire.CodeMethodNotAllowed, "fence: the gateway does not serve %s on an object", q.r.Method))
	}
}
