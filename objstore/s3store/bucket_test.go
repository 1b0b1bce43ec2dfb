package s3store

import (
	"testing"

	"github.com/fencedstore/fence/objstore/internal/s3test"
)

func TestEnsureBucket(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		opts := testOptions(srv)
		bucket := s3test.BucketName("fence-s3store-ensure-")
		b, err := Open(t.Context(), bucket, "p", &opts)
		if err != nil {
			t.Fatal(err)
		}
		s3test.EnsureBucket(t, b, func() { removeBucket(t, b.client, bucket) })
	})
}

func TestBucketErrors(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		opts := testOptions(srv)
		ctx := t.Context()
		// An endpoint nothing listens on: an error, not "missing".
		opts.Endpoint = "http://127.0.0.1:1"
		b, err := Open(ctx, s3test.UnreachableBucket, "", &opts)
		if err != nil {
			t.Fatal(err)
		}
		// An empty bucket name fails at construction.
		_, err = New(b.client, "", "", nil)
		s3test.BucketErrors(t, ctx, b, err)
	})
}
