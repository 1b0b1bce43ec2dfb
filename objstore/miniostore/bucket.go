package miniostore

import (
	"context"
	"fmt"

	"github.com/minio/minio-go/v7"
)

// BucketExists reports whether the backend's bucket exists, with one
// HEAD request. A missing bucket is (false, nil); any other failure (no
// connection, access denied) is an error that keeps minio-go's error in
// the chain for errors.As.
func (b *Backend) BucketExists(ctx context.Context) (bool, error) {
	ok, err := b.client.BucketExists(ctx, b.bucket)
	if err != nil {
		return false, fmt.Errorf("miniostore: head bucket %q: %w", b.bucket, err)
	}
	return ok, nil
}

// EnsureBucket creates the backend's bucket, in the client's region,
// unless it already exists and belongs to the caller; it is idempotent
// and safe to call concurrently. A name taken by another owner fails.
func (b *Backend) EnsureBucket(ctx context.Context) error {
	err := b.client.MakeBucket(ctx, b.bucket, minio.MakeBucketOptions{})
	if err == nil {
		return nil
	}
	switch minio.ToErrorResponse(err).Code {
	case minio.BucketAlreadyOwnedByYou:
		return nil
	case minio.BucketAlreadyExists:
		return fmt.Errorf("miniostore: create bucket %q: the name is taken by another owner; choose another bucket name: %w", b.bucket, err)
	}
	return fmt.Errorf("miniostore: create bucket %q: %w", b.bucket, err)
}
