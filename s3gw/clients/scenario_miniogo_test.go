package clients

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// minioGoScenario is the scenario with minio-go, which reads nothing
// from the environment itself: it is given the endpoint, the credentials
// of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and, over HTTPS, a
// transport that trusts AWS_CA_BUNDLE.
func minioGoScenario(t *testing.T, in scenarioInput) {
	ctx := context.Background()
	u, err := url.Parse(in.endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		t.Fatalf("AWS_ENDPOINT_URL=%q is not an http:// or https:// URL", in.endpoint)
	}
	opts := &minio.Options{
		Creds:        credentials.NewEnvAWS(),
		Secure:       u.Scheme == "https",
		Region:       in.region,
		BucketLookup: minio.BucketLookupPath,
	}
	if in.caBundle != "" {
		pem, err := os.ReadFile(in.caBundle)
		if err != nil {
			t.Fatalf("reading AWS_CA_BUNDLE: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			t.Fatalf("AWS_CA_BUNDLE=%s holds no PEM certificate", in.caBundle)
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
		opts.Transport = tr
	}
	c, err := minio.New(u.Host, opts)
	if err != nil {
		t.Fatalf("minio-go client for %s: %v", in.endpoint, err)
	}
	b, p := in.bucket, in.prefix
	put := func(name string, body []byte, o minio.PutObjectOptions) {
		t.Helper()
		if _, err := c.PutObject(ctx, b, p+name, bytes.NewReader(body), int64(len(body)), o); err != nil {
			t.Fatalf("put %s: %v", name, err)
		}
	}
	get := func(name string, o minio.GetObjectOptions) []byte {
		t.Helper()
		obj, err := c.GetObject(ctx, b, p+name, o)
		if err != nil {
			t.Fatalf("get %s: %v", name, err)
		}
		defer obj.Close()
		got, err := io.ReadAll(obj)
		if err != nil {
			t.Fatalf("reading %s: %v", name, err)
		}
		return got
	}

	t.Log("1. put small.bin")
	put("small.bin", in.small, minio.PutObjectOptions{})

	t.Log("2. multipart upload of big.bin")
	put("big.bin", in.big, minio.PutObjectOptions{PartSize: partSize})
	st, err := c.StatObject(ctx, b, p+"big.bin", minio.StatObjectOptions{})
	if err != nil {
		t.Fatalf("stat big.bin: %v", err)
	}
	checkMultipartETag(t, st.ETag)

	t.Log("3. get small.bin, and bytes 1000-1999 of big.bin")
	checkBytes(t, "small.bin", get("small.bin", minio.GetObjectOptions{}), in.small)
	var rng minio.GetObjectOptions
	if err := rng.SetRange(1000, 1999); err != nil {
		t.Fatal(err)
	}
	checkBytes(t, "bytes 1000-1999 of big.bin", get("big.bin", rng), in.big[1000:2000])

	t.Log("4. put list/0 .. list/4, list them 2 a page")
	for i, body := range in.list {
		put(fmt.Sprintf("list/%d", i), body, minio.PutObjectOptions{})
	}
	// Core's ListObjectsV2 is one request a page; Client.ListObjects
	// hides the pages.
	core := minio.Core{Client: c}
	var keys []string
	pages, token := 0, ""
	for {
		res, err := core.ListObjectsV2(b, p+"list/", "", token, "", 2)
		if err != nil {
			t.Fatalf("list page %d: %v", pages+1, err)
		}
		pages++
		if len(res.Contents) > 2 {
			t.Fatalf("page %d held %d keys; asked for at most 2", pages, len(res.Contents))
		}
		for _, o := range res.Contents {
			keys = append(keys, o.Key)
		}
		if !res.IsTruncated {
			break
		}
		if pages >= 10 {
			t.Fatalf("more than 10 pages for %d keys", listCount)
		}
		token = res.NextContinuationToken
	}
	checkListed(t, p, keys, pages)

	t.Log("5. server-side copy small.bin -> copy.bin")
	if _, err := c.CopyObject(ctx, minio.CopyDestOptions{Bucket: b, Object: p + "copy.bin"},
		minio.CopySrcOptions{Bucket: b, Object: p + "small.bin"}); err != nil {
		t.Fatalf("copy small.bin to copy.bin: %v", err)
	}

	t.Log("6. put gone.bin, delete it, check it is gone")
	put("gone.bin", in.small, minio.PutObjectOptions{})
	if err := c.RemoveObject(ctx, b, p+"gone.bin", minio.RemoveObjectOptions{}); err != nil {
		t.Fatalf("delete gone.bin: %v", err)
	}
	_, err = c.StatObject(ctx, b, p+"gone.bin", minio.StatObjectOptions{})
	if r := minio.ToErrorResponse(err); r.StatusCode != http.StatusNotFound {
		t.Fatalf("stat of the deleted gone.bin: got %v, want 404", err)
	}
}
