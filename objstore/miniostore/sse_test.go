package miniostore

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore"
)

// TestSSE checks that server-side encryption settings reach the store on
// both write paths: SSE-S3 always, SSE-KMS when FENCE_TEST_S3_KMS_KEY_ID
// names a key. It skips when the store has no KMS configured (MinIO needs
// MINIO_KMS_SECRET_KEY or a KMS server for either).
func TestSSE(t *testing.T) {
	_, base := testEndpoint(t)
	base.PartSize = MinPartSize
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
			var er minio.ErrorResponse
			if errors.As(err, &er) && er.Code == "NotImplemented" {
				t.Skipf("the store does not support %s here: %v", c.SSE, err)
			}
			if err != nil {
				t.Fatalf("Put with SSE: %v", err)
			}
			if _, err := b.Put(ctx, "large", &pattern{n: 6 << 20}, -1, objstore.PutOptions{IfNoneMatch: true}); err != nil {
				t.Fatalf("multipart Put with SSE: %v", err)
			}
			for _, k := range []string{"small", "large"} {
				st, err := b.client.StatObject(ctx, b.bucket, k, minio.StatObjectOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got := st.Metadata.Get("X-Amz-Server-Side-Encryption"); got != c.SSE {
					t.Errorf("%s: X-Amz-Server-Side-Encryption = %q, want %q", k, got, c.SSE)
				}
				if got := st.Metadata.Get("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id"); !strings.HasSuffix(got, c.KMSKeyID) {
					t.Errorf("%s: KMS key id = %q, want %q", k, got, c.KMSKeyID)
				}
			}
			mustGet(t, b, "small", 1, sumOf("x"))
			mustGet(t, b, "large", 6<<20, patternSum(6<<20))
		})
	}
}
