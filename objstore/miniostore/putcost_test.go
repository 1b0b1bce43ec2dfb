package miniostore

import (
	"bytes"
	"context"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/internal/s3test"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

// BenchmarkSmallPutCost compares the client's CPU and allocations of a
// warm fenced put of 1 KiB through this backend with minio-go's own
// PutObject of the same bytes through the same *minio.Client,
// interleaved (objstoretest.SmallPutCost). Run it with
//
//	go test -run '^$' -bench SmallPutCost ./objstore/miniostore/
func BenchmarkSmallPutCost(b *testing.B) {
	s3test.EachServer(b, "miniostore", func(b *testing.B, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		bk := newBucket(b, ep, "", opts)
		objstoretest.SmallPutCost(b, bk, func(ctx context.Context, key string, data []byte) error {
			_, err := bk.client.PutObject(ctx, bk.bucket, key, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{})
			return err
		})
	})
}
