package s3store

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore/internal/s3test"
)

func TestSSE(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		base := testOptions(srv)
		s3test.SSE(t, srv, func(t *testing.T, sse, kmsKeyID string) *Backend {
			opts := base
			opts.PartSize, opts.MultipartThreshold = MinPartSize, MinPartSize
			opts.SSE, opts.KMSKeyID = sse, kmsKeyID
			return newBucket(t, "", opts)
		}, func(err error) string {
			code, _ := apiError(err)
			return code
		}, func(t *testing.T, b *Backend, key string) (string, string) {
			h, err := b.client.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(key)})
			if err != nil {
				t.Fatal(err)
			}
			return string(h.ServerSideEncryption), aws.ToString(h.SSEKMSKeyId)
		})
	})
}
