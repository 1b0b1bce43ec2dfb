package s3gw

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/s3gw/wire"
)

// FuzzXMLBodies hands arbitrary bytes to the handlers that parse XML
// bodies (DeleteObjects, CompleteMultipartUpload) and arbitrary query
// strings to the listing, past the signature check (which wire's fuzz
// targets cover): every request must get an S3 answer (a 2xx, a 4xx,
// or 503 from the store), never a panic or a 500.
func FuzzXMLBodies(f *testing.F) {
	f.Add([]byte(`<Delete><Object><Key>reports/daily/a</Key></Object><Quiet>true</Quiet></Delete>`), "prefix=reports/&delimiter=/&max-keys=1")
	f.Add([]byte(`<Delete><Object><Key>elsewhere/a</Key></Object></Delete>`), "list-type=2&continuation-token=%%%")
	f.Add([]byte(`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"x"</ETag></Part></CompleteMultipartUpload>`), "marker=reports/daily/a&encoding-type=url")
	f.Add([]byte(`<Delete><Object><Key>reports/daily/b/c</Key><VersionId>1</VersionId></Object><Object><Key>reports/daily/</Key></Object></Delete>`), "max-keys=-1&list-type=2&start-after=reports/daily/z")
	ctx := context.Background()
	const domain = "reports/daily"
	store := objstore.New(memstore.New(), nil)
	for _, k := range []string{"a", "b/c", "b/d", "e"} {
		if _, err := store.Put(ctx, domain, k, 7, strings.NewReader("x"), 1); err != nil {
			f.Fatal(err)
		}
	}
	g, err := New(Options{Store: store, Domain: domain, Token: 7, Bucket: "bkt", Credentials: wire.StaticCredentials{"k": "s"}})
	if err != nil {
		f.Fatal(err)
	}
	auth := &wire.Auth{AccessKey: "k", PayloadHash: wire.UnsignedPayload}
	serve := func(r *http.Request) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		q := &request{w: rec, r: r, id: "fuzz", auth: auth}
		t, e := g.parseTarget(r)
		if e != nil {
			q.fail(e)
			return rec
		}
		q.t = t
		if t.s3key == "" {
			g.bucketRequest(q)
			return rec
		}
		if q.t.key, e = g.domainKey(t.s3key); e != nil {
			q.fail(e)
			return rec
		}
		g.objectRequest(q)
		return rec
	}
	rec := serve(httptest.NewRequest(http.MethodPost, "/bkt/"+domain+"/m?uploads", nil))
	_, after, _ := strings.Cut(rec.Body.String(), "<UploadId>")
	uploadID, _, _ := strings.Cut(after, "</UploadId>")
	f.Fuzz(func(t *testing.T, body []byte, query string) {
		for _, target := range []string{"/bkt?delete", "/bkt/" + domain + "/m?uploadId=" + uploadID} {
			if rec := serve(httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))); rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
				t.Fatalf("POST %s: status %d: %s", target, rec.Code, rec.Body)
			}
		}
		r := httptest.NewRequest(http.MethodGet, "/bkt", nil)
		r.URL.RawQuery = query
		if rec := serve(r); rec.Code >= 500 {
			t.Fatalf("GET ?%s: status %d: %s", query, rec.Code, rec.Body)
		}
	})
}
