package miniostore

import (
	"errors"
	"fmt"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/internal/s3err"
)

// fail wraps err from operation op on key, classifying S3 answers into
// the objstore error classes. minio-go's minio.ErrorResponse stays in the
// chain for errors.As.
func (b *Backend) fail(op, key string, err error) error {
	var er minio.ErrorResponse
	errors.As(err, &er)
	class := s3err.Class(er.Code, er.StatusCode)
	switch {
	case er.Code == "NoSuchBucket":
		return fmt.Errorf("miniostore: %s %q: bucket %q does not exist: %w: %w", op, key, b.bucket, class, err)
	case class == nil:
		return fmt.Errorf("miniostore: %s %q: %w", op, key, err)
	}
	return fmt.Errorf("miniostore: %s %q: %w: %w", op, key, class, err)
}
