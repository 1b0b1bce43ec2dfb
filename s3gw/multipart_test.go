package s3gw_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/s3gw"
	"github.com/fencedstore/fence/s3gw/wire"
)

const partSize = 5 << 20

// multipartUpload uploads src in parts of partSize from the SDK, the
// parts at once and the last first, one of them twice, and completes
// it; it returns the ETag.
func multipartUpload(t *testing.T, c *s3.Client, key string, src []byte) string {
	t.Helper()
	ctx := context.Background()
	cr, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(testBucket), Key: s3key(key), ContentType: aws.String("text/csv")})
	if err != nil {
		t.Fatal(err)
	}
	n := (len(src) + partSize - 1) / partSize
	etags := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, n+1)
	upload := func(i int, data []byte) {
		defer wg.Done()
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(testBucket), Key: s3key(key), UploadId: cr.UploadId,
			PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(data)})
		if err != nil {
			errs <- fmt.Errorf("part %d: %w", i+1, err)
			return
		}
		etags[i] = aws.ToString(out.ETag)
	}
	// The last part first, alone; then part 1 with other bytes, and the
	// others at once; then part 1 again with its own.
	wg.Add(1)
	upload(n-1, src[(n-1)*partSize:])
	wg.Add(1)
	upload(0, bytes.Repeat([]byte("x"), partSize))
	for i := 1; i < n-1; i++ {
		wg.Add(1)
		go upload(i, src[i*partSize:(i+1)*partSize])
	}
	wg.Wait()
	wg.Add(1)
	upload(0, src[:partSize])
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	parts := make([]types.CompletedPart, n)
	for i := range parts {
		parts[i] = types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: aws.String(etags[i])}
	}
	out, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(testBucket), Key: s3key(key), UploadId: cr.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.ETag)
}

// wantMultipartETag is S3's ETag of src uploaded in parts of partSize.
func wantMultipartETag(src []byte) string {
	all := md5.New()
	n := 0
	for off := 0; off < len(src); off += partSize {
		s := md5.Sum(src[off:min(off+partSize, len(src))])
		all.Write(s[:])
		n++
	}
	return fmt.Sprintf(`"%x-%d"`, all.Sum(nil), n)
}

// checkMultipart: a multipart upload whose parts come out of order and
// at once, one of them twice, is the job's value of the key, with S3's
// ETag on Complete, GET and HEAD, and is published by the commit.
func checkMultipart(t *testing.T, e *env) {
	ctx := context.Background()
	c := e.client(testSecret, nil)
	src := payload(3*partSize + 12345)
	etag := multipartUpload(t, c, "big.bin", src)
	if want := wantMultipartETag(src); etag != want {
		t.Fatalf("Complete's ETag %s, want %s", etag, want)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(testBucket), Key: s3key("big.bin")})
	if err != nil || aws.ToString(head.ETag) != etag || aws.ToString(head.ContentType) != "text/csv" || aws.ToInt64(head.ContentLength) != int64(len(src)) {
		t.Fatalf("HeadObject: %+v, %v", head, err)
	}
	if got := get(t, c, "big.bin", ""); !bytes.Equal(got, src) {
		t.Fatalf("GET after Complete: %d bytes, not the source's", len(got))
	}
	if got := get(t, c, "big.bin", "bytes=5242000-5243000"); !bytes.Equal(got, src[5242000:5243001]) {
		t.Fatal("ranged GET across a part boundary: wrong bytes")
	}
	e.publish()
	r, err := e.store.Get(ctx, testDomain, "big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, src) || r.Version.SHA256 != sha(src) {
		t.Fatalf("published big.bin: %d bytes, sha256 %s, %v", len(got), r.Version.SHA256, err)
	}
}

func TestMultipart(t *testing.T) { checkMultipart(t, newEnv(t, s3gw.CommitAtEnd, false)) }

// TestMultipartRefusals: S3's errors for a Complete that names a part
// never uploaded, lists parts out of order, or has a small part before
// the last; an unknown upload id; and an Abort leaves nothing staged.
func TestMultipartRefusals(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, s3gw.CommitAtEnd, false)
	c := e.client(testSecret, nil)
	cr, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(testBucket), Key: s3key("m")})
	if err != nil {
		t.Fatal(err)
	}
	var etags []string
	for i, data := range [][]byte{[]byte("small"), payload(100)} {
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(testBucket), Key: s3key("m"), UploadId: cr.UploadId, PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(data)})
		if err != nil {
			t.Fatal(err)
		}
		etags = append(etags, aws.ToString(out.ETag))
	}
	complete := func(parts ...types.CompletedPart) error {
		_, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(testBucket), Key: s3key("m"), UploadId: cr.UploadId,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
		return err
	}
	p := func(n int32, etag string) types.CompletedPart {
		return types.CompletedPart{PartNumber: aws.Int32(n), ETag: aws.String(etag)}
	}
	for _, tc := range []struct {
		name  string
		parts []types.CompletedPart
		code  string
	}{
		{"a part never uploaded", []types.CompletedPart{p(1, etags[0]), p(3, etags[1])}, wire.CodeInvalidPart},
		{"a wrong ETag", []types.CompletedPart{p(1, etags[1])}, wire.CodeInvalidPart},
		{"out of order", []types.CompletedPart{p(2, etags[1]), p(1, etags[0])}, wire.CodeInvalidPartOrder},
		{"a small part before the last", []types.CompletedPart{p(1, etags[0]), p(2, etags[1])}, wire.CodeEntityTooSmall},
	} {
		if err := complete(tc.parts...); s3Code(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
	if _, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(testBucket), Key: s3key("m"), UploadId: aws.String("nope"), PartNumber: aws.Int32(1), Body: bytes.NewReader(nil)}); s3Code(err) != wire.CodeNoSuchUpload {
		t.Errorf("UploadPart to an unknown upload: %v, want NoSuchUpload", err)
	}
	lp, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(testBucket), Key: s3key("m"), UploadId: cr.UploadId})
	if err != nil || len(lp.Parts) != 2 || aws.ToString(lp.Parts[1].ETag) != etags[1] {
		t.Fatalf("ListParts: %+v, %v", lp, err)
	}
	if _, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(testBucket), Key: s3key("m"), UploadId: cr.UploadId}); err != nil {
		t.Fatal(err)
	}
	if err := complete(p(1, etags[0])); s3Code(err) != wire.CodeNoSuchUpload {
		t.Errorf("Complete after Abort: %v, want NoSuchUpload", err)
	}
	if objs := e.versionObjects(); len(objs) != 0 {
		t.Fatalf("left after Abort: %v", objs)
	}
	if v, err := e.store.List(ctx, testDomain, nil); err == nil && len(v) != 0 {
		t.Fatalf("published: %v", v)
	}
	_ = objstore.MinPartSize
}

// TestListUploads: ListMultipartUploads shows the uploads in progress,
// not those completed or aborted; a Complete retried after its answer
// was lost gets the same answer.
func TestListUploads(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, s3gw.CommitAtEnd, false)
	c := e.client(testSecret, nil)
	ids := map[string]string{}
	for _, k := range []string{"open", "done", "gone"} {
		cr, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(testBucket), Key: s3key(k)})
		if err != nil {
			t.Fatal(err)
		}
		ids[k] = aws.ToString(cr.UploadId)
	}
	up, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(testBucket), Key: s3key("done"), UploadId: aws.String(ids["done"]), PartNumber: aws.Int32(1), Body: strings.NewReader("x")})
	if err != nil {
		t.Fatal(err)
	}
	complete := func() (*s3.CompleteMultipartUploadOutput, error) {
		return c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(testBucket), Key: s3key("done"), UploadId: aws.String(ids["done"]),
			MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: up.ETag}}}})
	}
	first, err := complete()
	if err != nil {
		t.Fatal(err)
	}
	again, err := complete()
	if err != nil || aws.ToString(again.ETag) != aws.ToString(first.ETag) {
		t.Fatalf("a retried Complete: %v, %v; want the first answer %s", again, err, aws.ToString(first.ETag))
	}
	if _, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(testBucket), Key: s3key("gone"), UploadId: aws.String(ids["gone"])}); err != nil {
		t.Fatal(err)
	}
	l, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(testBucket)})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Uploads) != 1 || aws.ToString(l.Uploads[0].UploadId) != ids["open"] {
		t.Fatalf("ListMultipartUploads: %+v, want the open upload alone", l.Uploads)
	}
}
