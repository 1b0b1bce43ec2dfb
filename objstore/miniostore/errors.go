package miniostore

import (
	"errors"
	"fmt"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/netfail"
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
	if ue := netfail.Unreachable(b.endpoint, err); ue != nil {
		return fmt.Errorf("miniostore: %s %q: %w", op, key, ue)
	}
	var er minio.ErrorResponse
	if errors.As(err, &er) && er.StatusCode != 0 {
		err = driver.Service(err, er.Code, er.StatusCode, er.Message)
	}
	switch {
	case code == "NoSuchBucket":
		return fmt.Errorf("miniostore: %s %q: %w", op, key, &driver.NoBucketError{Kind: "bucket", Name: b.bucket, Endpoint: b.endpoint, Err: err})
	case errors.Is(class, driver.ErrPermission):
		return fmt.Errorf("miniostore: %s %q: the store at %s refused the request (%s): check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, MINIO_ROOT_USER and MINIO_ROOT_PASSWORD, or AWS_PROFILE) and what they may do: %w: %w", op, key, b.endpoint, code, class, err)
	case class == nil:
		return fmt.Errorf("miniostore: %s %q: %w", op, key, err)
	case errors.Is(class, driver.ErrPermanent) && code != "":
		// minio-go's message leaves out the code, which says what to fix.
		return fmt.Errorf("miniostore: %s %q: %w: %s: %w", op, key, class, code, err)
	}
	return fmt.Errorf("miniostore: %s %q: %w: %w", op, key, class, err)
}
