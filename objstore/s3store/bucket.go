package s3store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// BucketExists reports whether the backend's bucket exists, with one
// HeadBucket request. A missing bucket is (false, nil); any other failure
// (no connection, access denied, a wrong region) is an error that keeps
// the SDK's error in the chain for errors.As.
func (b *Backend) BucketExists(ctx context.Context) (bool, error) {
	_, err := b.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(b.bucket)}, checksumsWhenRequired)
	if err == nil {
		return true, nil
	}
	if code, status := apiError(err); code == "NotFound" || code == "NoSuchBucket" || status == 404 {
		return false, nil
	}
	return false, fmt.Errorf("s3store: head bucket %q: %w", b.bucket, err)
}

// EnsureBucket creates the backend's bucket unless it already exists and
// belongs to the caller's account; it is idempotent and safe to call
// concurrently. Outside us-east-1 the bucket is created in the client's
// region (a location constraint). A name taken by another account fails.
func (b *Backend) EnsureBucket(ctx context.Context) error {
	in := &s3.CreateBucketInput{Bucket: aws.String(b.bucket)}
	if r := b.client.Options().Region; r != "" && r != "us-east-1" {
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraint(r)}
	}
	_, err := b.client.CreateBucket(ctx, in, checksumsWhenRequired)
	var owned *types.BucketAlreadyOwnedByYou
	if err == nil || errors.As(err, &owned) {
		return nil
	}
	var taken *types.BucketAlreadyExists
	if errors.As(err, &taken) {
		return fmt.Errorf("s3store: create bucket %q: the name is taken by another account; choose another bucket name: %w", b.bucket, err)
	}
	return fmt.Errorf("s3store: create bucket %q: %w", b.bucket, err)
}
