package miniostore

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore"
)

// fail wraps err from operation op on key, classifying S3 answers into
// the objstore error classes. minio-go's minio.ErrorResponse stays in the
// chain for errors.As.
func (b *Backend) fail(op, key string, err error) error {
	var er minio.ErrorResponse
	errors.As(err, &er)
	var class error
	switch {
	case er.Code == "NoSuchBucket":
		return fmt.Errorf("miniostore: %s %q: bucket %q does not exist: %w: %w", op, key, b.bucket, objstore.ErrNotFound, err)
	case er.StatusCode == http.StatusNotModified || er.Code == "NotModified":
		class = objstore.ErrNotModified
	case er.StatusCode == http.StatusPreconditionFailed || er.Code == "PreconditionFailed":
		class = objstore.ErrPreconditionFailed
	case er.Code == "ConditionalRequestConflict":
		class = objstore.ErrConflict
	case er.Code == "NoSuchUpload":
		// Not the object's absence: a retried CompleteMultipartUpload
		// whose first attempt succeeded gets it, so it stays ambiguous.
	case er.Code == "NoSuchKey" || er.Code == "NotFound" || er.StatusCode == http.StatusNotFound:
		class = objstore.ErrNotFound
	}
	if class == nil {
		return fmt.Errorf("miniostore: %s %q: %w", op, key, err)
	}
	return fmt.Errorf("miniostore: %s %q: %w: %w", op, key, class, err)
}
