package s3store

import (
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

func TestConformance(t *testing.T) {
	opts := testOptions(t)
	s3test.Conformance(t, func(t *testing.T, prefix string, partSize int64) objstore.Backend {
		o := opts
		o.PartSize, o.MultipartThreshold = partSize, partSize
		return newBucket(t, prefix, o)
	})
}

// TestPrefix checks that a prefixed backend writes under its prefix and
// reports keys without it.
func TestPrefix(t *testing.T) {
	opts := testOptions(t)
	b := newBucket(t, "/tenant/x/", opts)
	s3test.Prefix(t, b, "s3://"+b.Bucket()+"/tenant/x@"+opts.Endpoint, func(key string) (string, error) {
		out, err := b.client.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(b.Bucket()), Key: aws.String(key)})
		if err != nil {
			return "", err
		}
		defer out.Body.Close()
		data, err := io.ReadAll(out.Body)
		return string(data), err
	})
}
