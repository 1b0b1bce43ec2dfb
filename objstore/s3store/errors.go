package s3store

import (
	"errors"
	"fmt"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3err"
)

// fail wraps err from operation op on key, classifying S3 answers into
// the objstore error classes. The SDK's error stays in the chain for
// errors.As (smithy.APIError, *awshttp.ResponseError).
func (b *Backend) fail(op, key string, err error) error {
	code, status := apiError(err)
	return b.wrap(op, key, err, code, s3err.Class(code, status))
}

// failPut is fail for a Put in mode (see s3err.PutClass).
func (b *Backend) failPut(key string, err error, mode driver.PutMode) error {
	code, status := apiError(err)
	return b.wrap("put", key, err, code, s3err.PutClass(code, status, mode))
}

func (b *Backend) wrap(op, key string, err error, code string, class error) error {
	switch {
	case code == "NoSuchBucket":
		return fmt.Errorf("s3store: %s %q: bucket %q does not exist: %w: %w", op, key, b.bucket, class, err)
	case class == nil:
		return fmt.Errorf("s3store: %s %q: %w", op, key, err)
	}
	return fmt.Errorf("s3store: %s %q: %w: %w", op, key, class, err)
}

// apiError returns the S3 error code and HTTP status of err, when it has
// them.
func apiError(err error) (code string, status int) {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	return code, status
}
