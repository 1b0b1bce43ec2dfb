package miniostore

import (
	"context"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// testEndpoint returns the endpoint and Options for the test server srv
// (see s3test.EachServer).
func testEndpoint(srv s3test.Server) (string, Options) {
	return srv.Endpoint, Options{Region: srv.Region}
}

// newBucket creates a fresh, uniquely named bucket at endpoint ep and
// returns a backend for it with opts and prefix. The bucket and everything in it,
// unfinished multipart uploads included, is removed when t ends.
func newBucket(t testing.TB, ep, prefix string, opts Options) *Backend {
	t.Helper()
	bucket := s3test.BucketName("fence-miniostore-")
	b, err := Open(ep, bucket, prefix, &opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := b.client.MakeBucket(t.Context(), bucket, minio.MakeBucketOptions{Region: opts.Region}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
	t.Cleanup(func() { removeBucket(t, b.client, bucket) })
	return b
}

// removeBucket deletes the bucket and everything in it. It lists and
// deletes repeatedly because MinIO's listing hides an object while
// another object's key equals its prefix up to a "/" (see
// objstore/internal/s3test).
func removeBucket(t testing.TB, c *minio.Client, bucket string) {
	ctx := context.WithoutCancel(t.Context())
	for range 10 {
		n := 0
		for o := range c.ListObjectsIter(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
			if o.Err != nil {
				t.Errorf("cleanup: list %s: %v", bucket, o.Err)
				return
			}
			n++
			if err := c.RemoveObject(ctx, bucket, o.Key, minio.RemoveObjectOptions{}); err != nil {
				t.Errorf("cleanup: delete %s/%s: %v", bucket, o.Key, err)
			}
		}
		if n == 0 {
			break
		}
	}
	core := minio.Core{Client: c}
	for _, u := range listUploads(t, c, bucket) {
		core.AbortMultipartUpload(ctx, bucket, u.Key, u.UploadID)
	}
	if err := c.RemoveBucket(ctx, bucket); err != nil && minio.ToErrorResponse(err).Code != "NoSuchBucket" {
		t.Errorf("cleanup: delete bucket %s: %v", bucket, err)
	}
}

// listUploads returns the bucket's unfinished multipart uploads.
func listUploads(t testing.TB, c *minio.Client, bucket string) []minio.ObjectMultipartInfo {
	t.Helper()
	res, err := minio.Core{Client: c}.ListMultipartUploads(context.WithoutCancel(t.Context()), bucket, "", "", "", "", 1000)
	if err != nil {
		t.Fatalf("ListMultipartUploads(%s): %v", bucket, err)
	}
	return res.Uploads
}
