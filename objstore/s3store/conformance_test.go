package s3store

import (
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

func TestConformance(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		opts := testOptions(srv)
		s3test.Conformance(t, func(t *testing.T, prefix string, partSize int64) driver.Backend {
			o := opts
			o.PartSize, o.MultipartThreshold = partSize, partSize
			return newBucket(t, prefix, o)
		})
	})
}

// TestPrefix checks that a prefixed backend writes under its prefix and
// reports keys without it.
func TestPrefix(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		opts := testOptions(srv)
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
	})
}

func TestSlowProducer(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		opts := testOptions(srv)
		opts.Timeouts = s3test.ShortTimeouts
		opts.PartSize, opts.MultipartThreshold = s3test.MinPartSize, s3test.MinPartSize
		s3test.SlowProducer(t, func(t *testing.T) driver.Backend { return newBucket(t, "", opts) })
	})
}

func TestUnresponsiveServer(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	s3test.Unresponsive(t, func(t *testing.T, endpoint string) driver.Backend {
		b, err := Open(t.Context(), "bucket", "", &Options{Endpoint: endpoint, Region: "us-east-1", PathStyle: true, Timeouts: s3test.ShortTimeouts})
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
}

// BenchmarkProbe measures the capability probe, run once per location
// before a store's first write.
func BenchmarkProbe(b *testing.B) {
	s3test.EachServer(b, "s3store", func(b *testing.B, srv s3test.Server) {
		opts := testOptions(srv)
		bk := newBucket(b, "", opts)
		s3test.ProbeCost(b, func(prefix string) driver.Backend {
			nb, err := New(bk.client, bk.bucket, prefix, &opts)
			if err != nil {
				b.Fatal(err)
			}
			return nb
		})
	})
}

// TestInMemoryBodies: bodies held in memory, sent without a buffer.
func TestInMemoryBodies(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		s3test.InMemoryBodies(t, newBucket(t, "", testOptions(srv)))
	})
}
