package s3store

import (
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore"
)

// TestSSE checks that server-side encryption settings reach the store on
// both write paths: SSE-S3 always, SSE-KMS when FENCE_TEST_S3_KMS_KEY_ID
// names a key. It skips when the store has no KMS configured (MinIO needs
// MINIO_KMS_SECRET_KEY or a KMS server for either).
func TestSSE(t *testing.T) {
	base := testOptions(t)
	base.PartSize, base.MultipartThreshold = MinPartSize, MinPartSize
	cases := []Options{{SSE: "AES256"}}
	if id := os.Getenv("FENCE_TEST_S3_KMS_KEY_ID"); id != "" {
		cases = append(cases, Options{SSE: "aws:kms", KMSKeyID: id})
	}
	for _, c := range cases {
		t.Run(c.SSE, func(t *testing.T) {
			opts := base
			opts.SSE, opts.KMSKeyID = c.SSE, c.KMSKeyID
			b := newBucket(t, "", opts)
			ctx := t.Context()
			_, err := b.Put(ctx, "small", strings.NewReader("x"), 1, objstore.PutOptions{IfNoneMatch: true})
			if code, _ := apiError(err); err != nil && code == "NotImplemented" {
				t.Skipf("the store does not support %s here: %v", c.SSE, err)
			}
			if err != nil {
				t.Fatalf("Put with SSE: %v", err)
			}
			if _, err := b.Put(ctx, "large", &pattern{n: 6 << 20}, -1, objstore.PutOptions{IfNoneMatch: true}); err != nil {
				t.Fatalf("multipart Put with SSE: %v", err)
			}
			for _, k := range []string{"small", "large"} {
				h, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(k)})
				if err != nil {
					t.Fatal(err)
				}
				if string(h.ServerSideEncryption) != c.SSE {
					t.Errorf("%s: ServerSideEncryption = %q, want %q", k, h.ServerSideEncryption, c.SSE)
				}
				if c.KMSKeyID != "" && !strings.HasSuffix(aws.ToString(h.SSEKMSKeyId), c.KMSKeyID) {
					t.Errorf("%s: SSEKMSKeyId = %q, want %q", k, aws.ToString(h.SSEKMSKeyId), c.KMSKeyID)
				}
			}
			mustGet(t, b, "small", 1, sumOf("x"))
			mustGet(t, b, "large", 6<<20, patternSum(6<<20))
		})
	}
}
