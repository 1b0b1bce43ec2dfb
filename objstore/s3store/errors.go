package s3store

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/netfail"
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
	if ue := netfail.Unreachable(b.endpoint, err); ue != nil {
		return fmt.Errorf("s3store: %s %q: %w", op, key, ue)
	}
	if strings.Contains(err.Error(), "get identity: get credentials:") {
		// The chain found no credentials (the SDK then asks the EC2
		// metadata service, which answers with none on other machines);
		// no retry finds them.
		return fmt.Errorf("s3store: %s %q: no AWS credentials found for %s: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE: %w: %w", op, key, b.endpoint, driver.ErrPermission, err)
	}
	if _, status := apiError(err); status == http.StatusBadRequest && code == "" {
		// The AWS SDK drops a body that is not S3's XML, such as Go's
		// "Client sent an HTTP request to an HTTPS server".
		return fmt.Errorf("s3store: %s %q: %w", op, key, &driver.UnreachableError{Endpoint: b.endpoint,
			Reason: "the server answered 400 Bad Request without an S3 error code, as a server that expects TLS answers plain HTTP (use an https:// endpoint?)", Err: err})
	}
	err = b.service(err, code)
	switch {
	case code == "NoSuchBucket":
		return fmt.Errorf("s3store: %s %q: %w", op, key, &driver.NoBucketError{Kind: "bucket", Name: b.bucket, Endpoint: b.endpoint, Err: err})
	case errors.Is(class, driver.ErrPermission):
		return fmt.Errorf("s3store: %s %q: the store at %s refused the request (%s): check the credentials (the AWS credential chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, ...) and what they may do: %w: %w", op, key, b.endpoint, code, class, err)
	case class == nil:
		return fmt.Errorf("s3store: %s %q: %w", op, key, err)
	}
	return fmt.Errorf("s3store: %s %q: %w: %w", op, key, class, err)
}

// service wraps err, an answer of the store, in a *driver.ServiceError
// that says it in one line.
func (b *Backend) service(err error, code string) error {
	var ae smithy.APIError
	var re *awshttp.ResponseError
	if !errors.As(err, &ae) && !errors.As(err, &re) {
		return err
	}
	_, status := apiError(err)
	msg := ""
	if ae != nil {
		msg = ae.ErrorMessage()
	}
	return driver.Service(err, code, status, msg)
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
