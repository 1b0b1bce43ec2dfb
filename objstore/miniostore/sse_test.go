package miniostore

import (
	"errors"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/internal/s3test"
)

func TestSSE(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, base := testEndpoint(srv)
		s3test.SSE(t, srv, func(t *testing.T, sse, kmsKeyID string) *Backend {
			opts := base
			opts.PartSize = MinPartSize
			opts.SSE, opts.KMSKeyID = sse, kmsKeyID
			return newBucket(t, ep, "", opts)
		}, func(err error) string {
			var er minio.ErrorResponse
			errors.As(err, &er)
			return er.Code
		}, func(t *testing.T, b *Backend, key string) (string, string) {
			st, err := b.client.StatObject(t.Context(), b.bucket, key, minio.StatObjectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return st.Metadata.Get("X-Amz-Server-Side-Encryption"), st.Metadata.Get("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id")
		})
	})
}
