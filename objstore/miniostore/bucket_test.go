package miniostore

import (
	"context"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore/internal/s3test"
)

func TestEnsureBucket(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		bucket := s3test.BucketName("fence-miniostore-ensure-")
		b, err := Open(ep, bucket, "p", &opts)
		if err != nil {
			t.Fatal(err)
		}
		s3test.EnsureBucket(t, b, func() { removeBucket(t, b.client, bucket) })
	})
}

func TestBucketErrors(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		_, opts := testEndpoint(srv)
		// minio-go retries a refused connection for about 5 seconds.
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		// An endpoint nothing listens on: an error, not "missing".
		b, err := Open("http://127.0.0.1:1", s3test.UnreachableBucket, "", &opts)
		if err != nil {
			t.Fatal(err)
		}
		// An empty bucket name fails at construction.
		_, err = New(b.client, "", "")
		s3test.BucketErrors(t, ctx, b, err)
	})
}
