// Package s3err maps S3 answers to the driver's terms (error classes, object sizes), for
// the s3store and miniostore backends, which each take the error code and
// HTTP status out of their own SDK's errors.
package s3err

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/fencedstore/fence/objstore/driver"
)

// Class returns the objstore error class of an S3 error answer with the
// given error code and HTTP status, or nil:
//
//   - NoSuchBucket: driver.ErrNoBucket
//   - NoSuchKey, NotFound or 404: driver.ErrNotFound
//   - NotModified or 304: driver.ErrNotModified
//   - PreconditionFailed or 412: driver.ErrPreconditionFailed
//   - ConditionalRequestConflict: driver.ErrConflict
//   - AccessDenied, InvalidAccessKeyId, SignatureDoesNotMatch,
//     AllAccessDisabled, or any 403 but RequestTimeTooSkewed (which the
//     SDKs correct and retry themselves): driver.ErrPermission
//   - XMinioStorageFull, InsufficientStorage (versitygw's full disk):
//     driver.ErrNoSpace
//   - KeyTooLongError, MissingContentLength, InvalidBucketName,
//     EntityTooLarge, InvalidStorageClass, or 411: driver.ErrPermanent;
//     so are ObjectParentIsFile and ExistingObjectIsDirectory (409), with
//     which a store over a POSIX file system (versitygw) refuses a key
//     whose parent is a file ("a/b" beside an object "a") or a key that
//     is a directory ("a" beside "a/b"), and DirectoryObjectContainsData.
//     NotImplemented is not among them: a store that lacks a
//     conditional header may answer it, and the capability probe must
//     not report that as a store that cannot be written.
//   - NoSuchUpload, and anything else: nil. NoSuchUpload is not the
//     object's absence: a retried CompleteMultipartUpload whose first
//     attempt succeeded gets it, so it stays ambiguous.
//
// The permanent classes are answers a retry of the same request gets
// again, so the Store fails at once instead of retrying until its
// deadline. The backends name the bucket in the message of NoSuchBucket.
func Class(code string, status int) error {
	switch {
	case code == "NoSuchBucket":
		return driver.ErrNoBucket
	case permission[code] || status == http.StatusForbidden && code != "RequestTimeTooSkewed":
		return driver.ErrPermission
	case code == "XMinioStorageFull" || code == "InsufficientStorage":
		return driver.ErrNoSpace
	case permanent[code] || status == http.StatusLengthRequired:
		return driver.ErrPermanent
	case status == http.StatusNotModified || code == "NotModified":
		return driver.ErrNotModified
	case status == http.StatusPreconditionFailed || code == "PreconditionFailed":
		return driver.ErrPreconditionFailed
	case code == "ConditionalRequestConflict":
		return driver.ErrConflict
	case code == "NoSuchUpload":
		return nil
	case code == "NoSuchKey" || code == "NotFound" || status == http.StatusNotFound:
		return driver.ErrNotFound
	}
	return nil
}

// permission holds the codes of a request the store refused to let the
// caller make: its credentials, or its rights, are wrong.
var permission = map[string]bool{
	"AccessDenied":          true,
	"InvalidAccessKeyId":    true,
	"SignatureDoesNotMatch": true,
	"AllAccessDisabled":     true,
}

// permanent holds the codes of a request the store will refuse every
// time it is sent, whatever the credentials.
var permanent = map[string]bool{
	"KeyTooLongError":      true,
	"MissingContentLength": true,
	"InvalidBucketName":    true,
	"EntityTooLarge":       true,
	"InvalidStorageClass":  true,
	// versitygw's POSIX backend: the key cannot be a file there, until
	// the object in its way is deleted. A 409, which is not a conflict
	// between concurrent writes (ConditionalRequestConflict).
	"ObjectParentIsFile":          true,
	"ExistingObjectIsDirectory":   true,
	"DirectoryObjectContainsData": true,
}

// PutClass is Class for the answer to a Put in mode: an Update of a
// missing key (NoSuchKey, 404) fails its precondition, as the driver
// contract says, while a missing bucket stays ErrNoBucket.
func PutClass(code string, status int, mode driver.PutMode) error {
	class := Class(code, status)
	if _, update := mode.(driver.Update); update && class == driver.ErrNotFound {
		return driver.ErrPreconditionFailed
	}
	return class
}

// ObjectSize returns the whole object's size from a GET answer: the total
// of its Content-Range ("bytes 0-9/1234") when it has one, else its
// Content-Length.
func ObjectSize(contentRange string, contentLength int64) int64 {
	i := strings.LastIndexByte(contentRange, '/')
	if i < 0 {
		return contentLength
	}
	n, err := strconv.ParseInt(contentRange[i+1:], 10, 64)
	if err != nil {
		return contentLength
	}
	return n
}
