package azblobstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/netfail"
)

// Azure error codes (x-ms-error-code) the backend tells apart.
const (
	codeBlobNotFound         = "BlobNotFound"
	codeContainerNotFound    = "ContainerNotFound"
	codeBlobAlreadyExists    = "BlobAlreadyExists"
	codeConditionNotMet      = "ConditionNotMet"
	codeAuthenticationFailed = "AuthenticationFailed"
)

// Class returns the objstore error class of an Azure error answer with
// the given error code and HTTP status, or nil:
//
//   - 304: driver.ErrNotModified
//   - 412 (ConditionNotMet), and 409 BlobAlreadyExists (the answer to
//     If-None-Match: * on an existing blob): driver.ErrPreconditionFailed
//   - ContainerNotFound: driver.ErrNoBucket
//   - BlobNotFound, any other 404: driver.ErrNotFound
//   - any 403 (AuthenticationFailed: wrong key or token;
//     AuthorizationPermissionMismatch: a role without the data action):
//     driver.ErrPermission
//   - InvalidResourceName, InvalidMetadata, RequestBodyTooLarge, 413:
//     driver.ErrPermanent
//   - anything else, 429 and 503 ServerBusy (which the SDK has already
//     retried) and InvalidBlockList included: nil, so the Store treats a
//     write as ambiguous and settles it by reading.
func Class(code string, status int) error {
	switch {
	case status == http.StatusNotModified:
		return driver.ErrNotModified
	case status == http.StatusPreconditionFailed || code == codeConditionNotMet || code == codeBlobAlreadyExists:
		return driver.ErrPreconditionFailed
	case status == http.StatusForbidden:
		return driver.ErrPermission
	case permanent[code] || status == http.StatusRequestEntityTooLarge:
		return driver.ErrPermanent
	case code == codeContainerNotFound:
		return driver.ErrNoBucket
	case code == codeBlobNotFound || status == http.StatusNotFound:
		return driver.ErrNotFound
	}
	return nil
}

var permanent = map[string]bool{
	"InvalidResourceName": true,
	"InvalidMetadata":     true,
	"RequestBodyTooLarge": true,
	"OutOfRangeInput":     true,
}

// PutClass is Class for the answer to a Put in mode: an Update of a
// missing blob (Azure's 404 BlobNotFound) fails its precondition, as the
// driver contract says, while a missing container stays ErrNoBucket.
func PutClass(code string, status int, mode driver.PutMode) error {
	class := Class(code, status)
	if _, update := mode.(driver.Update); update && class == driver.ErrNotFound {
		return driver.ErrPreconditionFailed
	}
	return class
}

// fail wraps err from operation op on key, classifying Azure answers into
// the objstore error classes. The SDK's error stays in the chain for
// errors.As (*azcore.ResponseError).
func (b *Backend) fail(op, key string, err error) error {
	code, status := apiError(err)
	return b.wrap(op, key, err, code, status, Class(code, status))
}

// failPut is fail for a Put in mode (see PutClass).
func (b *Backend) failPut(key string, err error, mode driver.PutMode) error {
	code, status := apiError(err)
	return b.wrap("put", key, err, code, status, PutClass(code, status, mode))
}

func (b *Backend) wrap(op, key string, err error, code string, status int, class error) error {
	if ue := netfail.Unreachable(b.endpoint, err); ue != nil {
		return fmt.Errorf("azblobstore: %s %q: %w", op, key, ue)
	}
	err = service(err)
	var af *azidentity.AuthenticationFailedError
	var cu interface{ NonRetriable() }
	switch {
	case code == codeContainerNotFound:
		return fmt.Errorf("azblobstore: %s %q: %w", op, key, &driver.NoBucketError{Kind: "container", Name: b.container, Endpoint: b.endpoint, Err: err})
	case status == 0 && (errors.As(err, &af) || errors.As(err, &cu) && strings.Contains(err.Error(), "DefaultAzureCredential")):
		return fmt.Errorf("azblobstore: %s %q: no Azure credentials found for %s: set %s, or %s and %s, or configure an Azure identity (DefaultAzureCredential): %w: %w",
			op, key, b.endpoint, EnvConnectionString, EnvAccount, EnvKey, driver.ErrPermission, err)
	case status == http.StatusForbidden:
		return fmt.Errorf("azblobstore: %s %q: %s: %w: %w", op, key, b.denied(code), class, err)
	case status == 0 && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && isTransport(err):
		return fmt.Errorf("azblobstore: %s %q: cannot reach the blob service at %s: %w", op, key, b.endpoint, err)
	case class == nil:
		return fmt.Errorf("azblobstore: %s %q: %w", op, key, err)
	}
	return fmt.Errorf("azblobstore: %s %q: %w: %w", op, key, class, err)
}

// service wraps err, an answer of the blob service, in a
// *driver.ServiceError that says it in one line (the SDK's own text is a
// dump of many lines).
func service(err error) error {
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode == 0 {
		return err
	}
	msg := ""
	if re.RawResponse != nil {
		msg = strings.TrimSpace(strings.TrimPrefix(re.RawResponse.Status, strconv.Itoa(re.StatusCode)))
	}
	return driver.Service(err, re.ErrorCode, re.StatusCode, msg)
}

// denied explains a 403 answer with code.
func (b *Backend) denied(code string) string {
	if code == codeAuthenticationFailed || code == "AuthorizationFailure" {
		// Azure says AuthenticationFailed for a bad signature, Azurite
		// AuthorizationFailure.
		return fmt.Sprintf("the blob service at %s refused the credentials (403 %s): check %s, or %s and %s, or the Azure identity in use", b.endpoint, code, EnvConnectionString, EnvAccount, EnvKey)
	}
	return fmt.Sprintf("the blob service at %s denied access (403 %s): the credentials are valid but lack a role with the data actions fence needs (see docs/stores.md)", b.endpoint, code)
}

// apiError returns the Azure error code and HTTP status of err, when it
// has them.
func apiError(err error) (code string, status int) {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode, re.StatusCode
	}
	return "", 0
}

func isCode(err error, code string) bool {
	c, _ := apiError(err)
	return c == code
}

// isTransport reports whether err is a failure to exchange a request
// with the service (no connection, a reset, a timeout), as opposed to
// the body's or the caller's own errors.
func isTransport(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne)
}
