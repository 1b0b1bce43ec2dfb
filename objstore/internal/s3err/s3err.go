// Package s3err maps S3 error answers to the objstore error classes, for
// the s3store and miniostore backends, which each take the error code and
// HTTP status out of their own SDK's errors.
package s3err

import (
	"net/http"

	"github.com/fencedstore/fence/objstore"
)

// Class returns the objstore error class of an S3 error answer with the
// given error code and HTTP status, or nil:
//
//   - NoSuchBucket, NoSuchKey, NotFound or 404: objstore.ErrNotFound
//   - NotModified or 304: objstore.ErrNotModified
//   - PreconditionFailed or 412: objstore.ErrPreconditionFailed
//   - ConditionalRequestConflict: objstore.ErrConflict
//   - NoSuchUpload, and anything else: nil. NoSuchUpload is not the
//     object's absence: a retried CompleteMultipartUpload whose first
//     attempt succeeded gets it, so it stays ambiguous.
//
// The backends name the bucket in the message of NoSuchBucket.
func Class(code string, status int) error {
	switch {
	case code == "NoSuchBucket":
		return objstore.ErrNotFound
	case status == http.StatusNotModified || code == "NotModified":
		return objstore.ErrNotModified
	case status == http.StatusPreconditionFailed || code == "PreconditionFailed":
		return objstore.ErrPreconditionFailed
	case code == "ConditionalRequestConflict":
		return objstore.ErrConflict
	case code == "NoSuchUpload":
		return nil
	case code == "NoSuchKey" || code == "NotFound" || status == http.StatusNotFound:
		return objstore.ErrNotFound
	}
	return nil
}
