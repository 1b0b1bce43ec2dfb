package s3store

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

func TestMultipart(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		opts := testOptions(srv)
		drivertest.RunMultipart(t, func(t *testing.T, partSize int64) *Backend {
			o := opts
			o.PartSize, o.MultipartThreshold = partSize, partSize
			return newBucket(t, "", o)
		}, func(t *testing.T, b *Backend) []string {
			var keys []string
			for _, u := range listUploads(t, b.client, b.bucket) {
				keys = append(keys, aws.ToString(u.Key))
			}
			return keys
		})
	})
}

// TestNoSuchBucket: a missing bucket is ErrNotFound, named in the message.
func TestNoSuchBucket(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		opts := testOptions(srv)
		const bucket = "fence-s3store-no-such-bucket"
		b, err := Open(t.Context(), bucket, "", &opts)
		if err != nil {
			t.Fatal(err)
		}
		s3test.NoSuchBucket(t, b, bucket)
	})
}
