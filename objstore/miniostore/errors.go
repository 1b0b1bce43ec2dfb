package miniostore

import (
	"errors"
	"fmt"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3err"
)

// fail wraps err from operation op on key, classifying S3 answers into
// the objstore error classes. minio-go's minio.ErrorResponse stays in the
// chain for errors.As.
func (b *Backend) fail(op, key string, err error) error {
	var er minio.ErrorResponse
	errors.As(err, &er)
	return b.wrap(op, key, err, er.Code, s3err.Class(er.Code, er.StatusCode))
}

// failPut is fail for a Put in mode (see s3err.PutClass).
func (b *Backend) failPut(key string, err error, mode driver.PutMode) error {
	var er minio.ErrorResponse
	errors.As(err, &er)
	return b.wrap("put", key, err, er.Code, s3err.PutClass(er.Code, er.StatusCode, mode))
}

func (b *Backend) wrap(op, key string, err error, code string, class error) error {
	switch {
	case code == "NoSuchBucket":
		return fmt.Errorf("miniostore: %s %q: bucket %q does not exist: %w: %w", op, key, b.bucket, class, err)
	case class == nil:
		return fmt.Errorf("miniostore: %s %q: %w", op, key, err)
	case errors.Is(class, driver.ErrPermanent) && code != "":
		// minio-go's message leaves out the code, which says what to fix.
		return fmt.Errorf("miniostore: %s %q: %w: %s: %w", op, key, class, code, err)
	}
	return fmt.Errorf("miniostore: %s %q: %w: %w", op, key, class, err)
}
