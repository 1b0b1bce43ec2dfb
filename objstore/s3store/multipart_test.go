package s3store

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

func TestMultipart(t *testing.T) {
	opts := testOptions(t)
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
}

// TestNoSuchBucket: a missing bucket is ErrNotFound, named in the message.
func TestNoSuchBucket(t *testing.T) {
	opts := testOptions(t)
	const bucket = "fence-s3store-no-such-bucket"
	b, err := Open(t.Context(), bucket, "", &opts)
	if err != nil {
		t.Fatal(err)
	}
	s3test.NoSuchBucket(t, b, bucket)
}
