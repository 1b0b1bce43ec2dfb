package miniostore

import (
	"context"

	"github.com/minio/minio-go/v7"
)

// SSE returns the server-side encryption the backend's writes ask for
// (Options.SSE: "", "AES256" or "aws:kms") and the KMS key id.
func (b *Backend) SSE() (sse, kmsKeyID string) { return b.sseName, b.kmsKeyID }

// StoredSSE returns the server-side encryption the store reports for the
// object key (HEAD's x-amz-server-side-encryption, and its KMS key id):
// "" when it reports none, as a store that accepted the header and
// stored the object in plaintext does. fence doctor compares it with
// SSE.
func (b *Backend) StoredSSE(ctx context.Context, key string) (sse, kmsKeyID string, err error) {
	oi, err := b.client.StatObject(ctx, b.bucket, b.objectKey(key), minio.StatObjectOptions{})
	if err != nil {
		return "", "", b.fail("head", key, err)
	}
	return oi.Metadata.Get("X-Amz-Server-Side-Encryption"), oi.Metadata.Get("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id"), nil
}
