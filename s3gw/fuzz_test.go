package s3gw_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/s3gw"
	"github.com/fencedstore/fence/s3gw/wire"
)

// FuzzXMLBodies sends arbitrary bytes, correctly signed, as the XML
// bodies the gateway parses (DeleteObjects and CompleteMultipartUpload)
// and as a listing's query: the gateway must answer every one with an
// S3 status (a 4xx, or 503 from the store), never a panic or a 500.
func FuzzXMLBodies(f *testing.F) {
	f.Add([]byte(`<Delete><Object><Key>reports/daily/a</Key></Object><Quiet>true</Quiet></Delete>`), "prefix=reports/&delimiter=/&max-keys=1")
	f.Add([]byte(`<Delete><Object><Key>elsewhere/a</Key></Object></Delete>`), "list-type=2&continuation-token=%%%")
	f.Add([]byte(`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"x"</ETag></Part></CompleteMultipartUpload>`), "marker=reports/daily/a&encoding-type=url")
	f.Add([]byte(`<Delete>`+strings.Repeat(`<Object><Key>k</Key></Object>`, 1001)+`</Delete>`), "max-keys=-1")
	ctx := context.Background()
	store := objstore.New(memstore.New(), nil)
	if _, err := store.Put(ctx, testDomain, "kept", testToken, strings.NewReader("x"), 1); err != nil {
		f.Fatal(err)
	}
	gw, err := s3gw.New(s3gw.Options{Store: store, Domain: testDomain, Token: testToken, Bucket: testBucket,
		Credentials: wire.StaticCredentials{testAccess: testSecret}})
	if err != nil {
		f.Fatal(err)
	}
	cr, err := http.NewRequest(http.MethodPost, "http://gw/"+testBucket+"/"+testDomain+"/m?uploads", nil)
	if err != nil {
		f.Fatal(err)
	}
	rec := send(f, gw, cr, nil)
	_, after, _ := strings.Cut(rec.Body.String(), "<UploadId>")
	uploadID, _, _ := strings.Cut(after, "</UploadId>")
	f.Fuzz(func(t *testing.T, body []byte, query string) {
		for _, target := range []string{
			"/" + testBucket + "?delete",
			"/" + testBucket + "/" + testDomain + "/m?uploadId=" + uploadID,
		} {
			r, err := http.NewRequest(http.MethodPost, "http://gw"+target, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if rec := send(t, gw, r, body); rec.Code == 0 || rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
				t.Fatalf("POST %s: status %d: %s", target, rec.Code, rec.Body)
			}
		}
		r, err := http.NewRequest(http.MethodGet, "http://gw/"+testBucket, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.URL.RawQuery = query
		if rec := send(t, gw, r, nil); rec.Code == 0 || rec.Code >= 500 {
			t.Fatalf("GET ?%s: status %d: %s", query, rec.Code, rec.Body)
		}
	})
}

// send signs r (with its body's SHA-256) as aws-sdk-go-v2 does and has gw
// answer it.
func send(t testing.TB, gw http.Handler, r *http.Request, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	r.Header.Set("X-Amz-Content-Sha256", hash)
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: testAccess, SecretAccessKey: testSecret},
		r, hash, "s3", s3gw.DefaultRegion, time.Now()); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	gw.ServeHTTP(rec, r)
	return rec
}
