package miniostore

import (
	"testing"

	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

func TestMultipart(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		drivertest.RunMultipart(t, func(t *testing.T, partSize int64) *Backend {
			o := opts
			o.PartSize = partSize
			return newBucket(t, ep, "", o)
		}, func(t *testing.T, b *Backend) []string {
			var keys []string
			for _, u := range listUploads(t, b.client, b.bucket) {
				keys = append(keys, u.Key)
			}
			return keys
		})
	})
}

// TestNoSuchBucket: a missing bucket is ErrNotFound, named in the message.
func TestNoSuchBucket(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		const bucket = "fence-miniostore-no-such-bucket"
		b, err := Open(ep, bucket, "", &opts)
		if err != nil {
			t.Fatal(err)
		}
		s3test.NoSuchBucket(t, b, bucket)
	})
}
