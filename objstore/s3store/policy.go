package s3store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// BucketPolicy returns the bucket's policy document, or "" when it has
// none.
func (b *Backend) BucketPolicy(ctx context.Context) (string, error) {
	out, err := b.client.GetBucketPolicy(ctx, &s3.GetBucketPolicyInput{Bucket: aws.String(b.bucket)}, checksumsWhenRequired)
	if err != nil {
		if code, _ := apiError(err); code == "NoSuchBucketPolicy" {
			return "", nil
		}
		return "", fmt.Errorf("s3store: get the policy of bucket %q: %w", b.bucket, err)
	}
	return aws.ToString(out.Policy), nil
}

// SetBucketPolicy replaces the bucket's policy with doc.
func (b *Backend) SetBucketPolicy(ctx context.Context, doc string) error {
	_, err := b.client.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(b.bucket), Policy: aws.String(doc)})
	if err != nil {
		if code, _ := apiError(err); code == "MalformedPolicy" {
			return fmt.Errorf("s3store: put the policy of bucket %q: the store refused the policy; it may not support the condition keys in it (AWS S3 supports s3:if-match, s3:if-none-match and s3:ObjectCreationOperation): %w", b.bucket, err)
		}
		return fmt.Errorf("s3store: put the policy of bucket %q: %w", b.bucket, err)
	}
	return nil
}
