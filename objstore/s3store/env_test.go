package s3store

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// testOptions returns Options for the test server srv (see
// s3test.EachServer).
func testOptions(srv s3test.Server) Options {
	return Options{Endpoint: srv.Endpoint, Region: srv.Region, PathStyle: true}
}

// newBucket creates a fresh, uniquely named bucket and returns a backend
// for it with opts and prefix. The bucket and everything in it,
// unfinished multipart uploads included, is removed when t ends.
func newBucket(t testing.TB, prefix string, opts Options) *Backend {
	t.Helper()
	ctx := t.Context()
	bucket := s3test.BucketName("fence-s3store-")
	b, err := Open(ctx, bucket, prefix, &opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, err := b.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
	t.Cleanup(func() { removeBucket(t, b.client, bucket) })
	return b
}

// removeBucket deletes the bucket and everything in it. It lists and
// deletes repeatedly because MinIO's listing hides an object while
// another object's key equals its prefix up to a "/" (see
// objstore/internal/s3test).
func removeBucket(t testing.TB, c *s3.Client, bucket string) {
	ctx := context.WithoutCancel(t.Context())
	bk := aws.String(bucket)
	for range 10 {
		n := 0
		p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: bk})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				t.Errorf("cleanup: list %s: %v", bucket, err)
				return
			}
			for _, o := range page.Contents {
				n++
				if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: bk, Key: o.Key}); err != nil {
					t.Errorf("cleanup: delete %s/%s: %v", bucket, aws.ToString(o.Key), err)
				}
			}
		}
		if n == 0 {
			break
		}
	}
	for _, u := range listUploads(t, c, bucket) {
		c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: bk, Key: u.Key, UploadId: u.UploadId})
	}
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: bk}); err != nil {
		var nb *types.NoSuchBucket
		if !errors.As(err, &nb) {
			t.Errorf("cleanup: delete bucket %s: %v", bucket, err)
		}
	}
}

// listUploads returns the bucket's unfinished multipart uploads.
func listUploads(t testing.TB, c *s3.Client, bucket string) []types.MultipartUpload {
	t.Helper()
	out, err := c.ListMultipartUploads(context.WithoutCancel(t.Context()), &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("ListMultipartUploads(%s): %v", bucket, err)
	}
	return out.Uploads
}
