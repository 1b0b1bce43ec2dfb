package driver

import (
	"context"
	"crypto/sha256"
	"io"
)

// A HashingPutter is a Backend whose writes hash their bodies anyway (an
// S3 request is signed with its payload's SHA-256) and can report the
// hash, so that the Store, which records every value's SHA-256, need not
// hash the same bytes a second time.
type HashingPutter interface {
	// PutHashed is Put, and also returns the length and SHA-256 of
	// body. The digest is known whenever the whole body was read: after
	// a successful write, and with ErrPreconditionFailed (the body is
	// read before the precondition is decided). Otherwise it is the zero
	// Digest.
	PutHashed(ctx context.Context, key string, body io.Reader, size int64, opts PutOptions) (ObjectInfo, Digest, error)
}

// Digest is the length and SHA-256 of a body a HashingPutter read.
type Digest struct {
	// Known: the whole body was read, and Size and SHA256 are set.
	Known  bool
	Size   int64
	SHA256 [sha256.Size]byte
}
