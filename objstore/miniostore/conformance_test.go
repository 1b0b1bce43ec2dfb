package miniostore

import (
	"io"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

func TestConformance(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		s3test.Conformance(t, func(t *testing.T, prefix string, partSize int64) driver.Backend {
			o := opts
			o.PartSize = partSize
			return newBucket(t, ep, prefix, o)
		})
	})
}

// TestPrefix checks that a prefixed backend writes under its prefix and
// reports keys without it.
func TestPrefix(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		b := newBucket(t, ep, "/tenant/x/", opts)
		s3test.Prefix(t, b, "minio://"+b.Bucket()+"/tenant/x@"+ep, func(key string) (string, error) {
			obj, err := b.client.GetObject(t.Context(), b.Bucket(), key, minio.GetObjectOptions{})
			if err != nil {
				return "", err
			}
			defer obj.Close()
			data, err := io.ReadAll(obj)
			return string(data), err
		})
	})
}

func TestSlowProducer(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		opts.Timeouts = s3test.ShortTimeouts
		opts.PartSize = s3test.MinPartSize
		s3test.SlowProducer(t, func(t *testing.T) driver.Backend { return newBucket(t, ep, "", opts) })
	})
}

func TestUnresponsiveServer(t *testing.T) {
	s3test.Unresponsive(t, func(t *testing.T, endpoint string) driver.Backend {
		b, err := Open(endpoint, "bucket", "", &Options{Region: "us-east-1", Timeouts: s3test.ShortTimeouts})
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
}

// BenchmarkProbe measures the capability probe, run once per location
// before a store's first write.
func BenchmarkProbe(b *testing.B) {
	s3test.EachServer(b, "miniostore", func(b *testing.B, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		bk := newBucket(b, ep, "", opts)
		s3test.ProbeCost(b, func(prefix string) driver.Backend {
			nb, err := newBackend(bk.client, bk.bucket, prefix, opts)
			if err != nil {
				b.Fatal(err)
			}
			return nb
		})
	})
}

// TestInMemoryBodies: bodies held in memory, sent without a buffer.
func TestInMemoryBodies(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		s3test.InMemoryBodies(t, newBucket(t, ep, "", opts))
	})
}
