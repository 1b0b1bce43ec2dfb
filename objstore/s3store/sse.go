package s3store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// SSE returns the server-side encryption the backend's writes ask for
// (Options.SSE: "", "AES256" or "aws:kms") and the KMS key id.
func (b *Backend) SSE() (sse, kmsKeyID string) { return string(b.sse), b.kmsKeyID }

// StoredSSE returns the server-side encryption the store reports for the
// object key (HEAD's x-amz-server-side-encryption, and its KMS key id):
// "" when it reports none, as a store that accepted the header and
// stored the object in plaintext does. fence doctor compares it with
// SSE.
func (b *Backend) StoredSSE(ctx context.Context, key string) (sse, kmsKeyID string, err error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{
		Bucket: aws.String(b.bucket),
		Key:    aws.String(b.objectKey(key)),
	}, checksumsWhenRequired)
	if err != nil {
		return "", "", b.fail("head", key, err)
	}
	return string(out.ServerSideEncryption), aws.ToString(out.SSEKMSKeyId), nil
}
