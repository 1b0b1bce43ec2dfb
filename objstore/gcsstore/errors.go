package gcsstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/netfail"
)

// ErrRateLimited: GCS answered 429 (rateLimitExceeded, or more than about
// one write per second to one object name) after the SDK's own retries.
// It is no driver class: nothing is known about whether an earlier
// attempt of the same write landed, so the Store backs off, reads back
// and decides again, as for any ambiguous answer. It is never reported as
// a failed precondition or a fenced write.
var ErrRateLimited = errors.New("gcsstore: rate limited by the store (429): back off and retry")

// fail wraps err from operation op on key, classifying GCS answers into
// the driver's error classes. The SDK's error stays in the chain for
// errors.As (*googleapi.Error).
func (b *Backend) fail(ctx context.Context, op, key string, err error) error {
	return b.wrap(op, key, err, class(err), b.bucketMissing(ctx, err))
}

// failPut is fail for a Put in mode: an Update of a missing object fails
// its precondition, as the driver contract says; a missing bucket is
// driver.ErrNoBucket.
func (b *Backend) failPut(ctx context.Context, key string, err error, mode driver.PutMode) error {
	c, missing := class(err), b.bucketMissing(ctx, err)
	if _, update := mode.(driver.Update); update && c == driver.ErrNotFound && !missing {
		c = driver.ErrPreconditionFailed
	}
	return b.wrap("put", key, err, c, missing)
}

func (b *Backend) wrap(op, key string, err, c error, bucketMissing bool) error {
	if ue := netfail.Unreachable(b.where(), err); ue != nil {
		return fmt.Errorf("gcsstore: %s %q: %w", op, key, ue)
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Code != 0 {
		code := ""
		if len(ge.Errors) > 0 {
			code = ge.Errors[0].Reason
		}
		err = driver.Service(err, code, ge.Code, ge.Message)
	}
	switch {
	case bucketMissing:
		return fmt.Errorf("gcsstore: %s %q: %w", op, key, &driver.NoBucketError{Kind: "bucket", Name: b.name, Endpoint: b.where(), Err: err})
	case c == ErrRateLimited:
		return fmt.Errorf("gcsstore: %s %q: %w: %w", op, key, ErrRateLimited, err)
	case c == driver.ErrPermission && status(err) == http.StatusUnauthorized:
		return fmt.Errorf("gcsstore: %s %q: the store at %s refused the credentials (401; check Application Default Credentials): %w: %w", op, key, b.where(), c, err)
	case c == driver.ErrPermission:
		return fmt.Errorf("gcsstore: %s %q: the store at %s denied access (403): the credentials lack a role that allows it: %w: %w", op, key, b.where(), c, err)
	case c == nil:
		return fmt.Errorf("gcsstore: %s %q: %w", op, key, err)
	}
	return fmt.Errorf("gcsstore: %s %q: %w: %w", op, key, c, err)
}

// shouldRetry is the SDK's retry decision, except that an unreachable
// endpoint (driver.ErrUnreachable) fails at the first attempt: the Store
// does not retry it either.
func shouldRetry(err error) bool {
	return !netfail.IsUnreachable(err) && storage.ShouldRetry(err)
}

// where names the service requests go to, for messages.
func (b *Backend) where() string {
	if b.endpoint == "" {
		return "https://storage.googleapis.com"
	}
	return b.endpoint
}

// class returns the driver class of a GCS error, ErrRateLimited, or nil:
//
//   - storage.ErrObjectNotExist, storage.ErrBucketNotExist, 404:
//     driver.ErrNotFound
//   - 412 (conditionNotMet): driver.ErrPreconditionFailed
//   - 304: driver.ErrNotModified
//   - 401, 403: driver.ErrPermission
//   - 400 (a name or request GCS will always refuse), 413:
//     driver.ErrPermanent
//   - 429: ErrRateLimited
//   - anything else (5xx, no connection): nil, ambiguous
func class(err error) error {
	if errors.Is(err, storage.ErrObjectNotExist) || errors.Is(err, storage.ErrBucketNotExist) {
		return driver.ErrNotFound
	}
	switch status(err) {
	case http.StatusNotFound:
		return driver.ErrNotFound
	case http.StatusPreconditionFailed:
		return driver.ErrPreconditionFailed
	case http.StatusNotModified:
		return driver.ErrNotModified
	case http.StatusUnauthorized, http.StatusForbidden:
		return driver.ErrPermission
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return driver.ErrPermanent
	case http.StatusTooManyRequests:
		return ErrRateLimited
	}
	return nil
}

// status returns the HTTP status of a GCS error answer, 0 without one.
func status(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

// bucketMissing reports whether err says the bucket does not exist. A
// 404 does not say which of the object and the bucket is missing on every
// store (fake-gcs-server answers "Not Found" for both), so on a 404 it
// asks, with one request: only on that failure path.
func (b *Backend) bucketMissing(ctx context.Context, err error) bool {
	switch {
	case errors.Is(err, storage.ErrBucketNotExist):
		return true
	case !errors.Is(err, storage.ErrObjectNotExist) && status(err) != http.StatusNotFound:
		return false
	}
	ok, berr := b.BucketExists(context.WithoutCancel(ctx))
	return berr == nil && !ok
}
