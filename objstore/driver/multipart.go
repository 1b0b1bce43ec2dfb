package driver

import (
	"context"
	"io"
)

// A MultipartPutter is a Backend whose Put writes a large body with a
// multipart upload (S3's CreateMultipartUpload, UploadPart and
// CompleteMultipartUpload) and carries the put's precondition on
// CompleteMultipartUpload, the moment the object appears. Such a
// backend implements it so that Probe can prove that the store honours
// the precondition there too: some stores check If-None-Match and
// If-Match on PutObject only.
type MultipartPutter interface {
	// PutMultipart is Put, always with a multipart upload, whatever
	// the body's size: a body that fits in one part is one part (the
	// last part of an upload may be smaller than S3's 5 MiB minimum,
	// so a tiny body is one tiny part). size is the exact length of
	// body; -1 is not accepted. A backend that wraps another returns an
	// error matching ErrUnsupported, having done nothing, when the one it
	// wraps is not a MultipartPutter.
	PutMultipart(ctx context.Context, key string, body io.Reader, size int64, opts PutOptions) (ObjectInfo, error)
}

// PutMultipart calls b's PutMultipart, or fails with ErrUnsupported,
// doing nothing, when b is not a MultipartPutter: for backends that wrap
// another.
func PutMultipart(ctx context.Context, b Backend, key string, body io.Reader, size int64, opts PutOptions) (ObjectInfo, error) {
	if mp, ok := b.(MultipartPutter); ok {
		return mp.PutMultipart(ctx, key, body, size, opts)
	}
	return ObjectInfo{}, ErrUnsupported
}

// A MultipartNamer is a MultipartPutter that names the request which
// completes its uploads, and carries their precondition, for messages:
// Azure's "Put Block List". Without it, messages name S3's
// CompleteMultipartUpload. A backend that wraps a MultipartPutter
// forwards it with MultipartCommitName.
type MultipartNamer interface {
	MultipartCommitName() string
}

// MultipartCommitName returns the name of the request that completes
// b's multipart uploads: b's MultipartCommitName when b is a
// MultipartNamer, else "CompleteMultipartUpload".
func MultipartCommitName(b Backend) string {
	if n, ok := b.(MultipartNamer); ok {
		return n.MultipartCommitName()
	}
	return "CompleteMultipartUpload"
}
