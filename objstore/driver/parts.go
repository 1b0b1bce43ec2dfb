package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// A PartUploader is a Backend that can write one object from parts
// uploaded separately, in any order, possibly at the same time (S3's
// CreateMultipartUpload, UploadPart, CompleteMultipartUpload and
// AbortMultipartUpload). The Store uses it to stage one value from the
// parts of an S3 client's multipart upload without holding the value in
// memory or on local disk (Store.StageParts).
//
// The contract:
//
//   - CreateParts starts an upload of key and returns its id. The
//     object does not exist until CompleteParts; opts.ContentType and
//     opts.Metadata are stored with it (opts.Mode is not used:
//     CompleteParts takes the precondition).
//   - UploadPart stores part n (1 to 10,000) of the upload from body,
//     whose length is exactly size: a body longer or shorter stores
//     nothing for this call. A part uploaded again replaces the one
//     uploaded before, once the new upload succeeds. A failed upload of a
//     part leaves the part as it was, or unusable (versitygw writes a
//     part in place: CompleteParts then fails, as with a part never
//     uploaded), never with other bytes under its ETag. It returns the
//     part's ETag, which CompleteParts is given back. Calls for
//     different parts may run at once.
//   - CompleteParts makes the object from the listed parts, in the order
//     given (ascending part numbers, each with the ETag its last
//     successful UploadPart returned), if mode's precondition holds: the
//     object appears whole or not at all, and parts not listed are
//     discarded. On success the upload no longer exists. A backend with a
//     minimum part size (S3: 5 MiB for every part but the last) fails
//     with an error matching ErrPartTooSmall, whose *PartTooSmallError
//     names the part when the store says which one.
//   - AbortParts discards the upload and every part uploaded to it: it
//     leaves nothing in the store. Aborting an upload that no longer
//     exists is not an error.
//
// A backend that wraps another fails CreateParts with an error matching
// ErrUnsupported, having done nothing, when the one it wraps is not a
// PartUploader; the Store then stages the parts as objects of their own.
//
// An upload that is neither completed nor aborted (its process died)
// stays in the store, outside every List, until something removes it:
// on S3 a bucket lifecycle rule AbortIncompleteMultipartUpload does.
type PartUploader interface {
	CreateParts(ctx context.Context, key string, opts PutOptions) (uploadID string, err error)
	UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64) (etag string, err error)
	CompleteParts(ctx context.Context, key, uploadID string, parts []CompletedPart, mode PutMode) (ObjectInfo, error)
	AbortParts(ctx context.Context, key, uploadID string) error
}

// CompletedPart names one part of an upload for CompleteParts.
type CompletedPart struct {
	N    int    // the part number, 1 to MaxParts
	ETag string // as UploadPart returned it
}

// Limits of uploads in parts, S3's.
const (
	// MaxParts is the highest part number.
	MaxParts = 10000
	// MinPartSize is the smallest size of a part that is not the last
	// one of an object.
	MinPartSize = 5 << 20
	// MaxPartSize is the largest size of one part.
	MaxPartSize = 5 << 30
)

// ErrPartTooSmall: CompleteParts was refused because a part other than
// the last is smaller than the store's minimum (S3's EntityTooSmall).
// Nothing was written. It matches ErrPermanent.
var ErrPartTooSmall error = permanent("objstore: part too small")

// PartTooSmallError reports a part smaller than the store's minimum
// part size. It matches ErrPartTooSmall.
type PartTooSmallError struct {
	N    int   // the part number; 0 when the store did not say which
	Size int64 // the part's size; -1 when unknown
	Min  int64 // the minimum
	Err  error // the store's answer, when there was one
}

func (e *PartTooSmallError) Error() string {
	var s string
	switch {
	case e.N == 0:
		s = fmt.Sprintf("a part other than the last is smaller than the minimum of %d bytes", e.Min)
	case e.Size < 0:
		s = fmt.Sprintf("part %d is not the last and is smaller than the minimum of %d bytes", e.N, e.Min)
	default:
		s = fmt.Sprintf("part %d has %d bytes and is not the last: the minimum is %d", e.N, e.Size, e.Min)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return "objstore: " + s
}

func (e *PartTooSmallError) Is(target error) bool {
	return target == ErrPartTooSmall || target == ErrPermanent
}
func (e *PartTooSmallError) Unwrap() error { return e.Err }

// CheckPart checks the arguments of UploadPart that every backend
// checks the same way: a part number in 1..MaxParts and a size in
// 0..MaxPartSize.
func CheckPart(n int, size int64) error {
	switch {
	case n < 1 || n > MaxParts:
		return fmt.Errorf("part number %d is not in 1..%d", n, MaxParts)
	case size < 0:
		return errors.New("a part's size must be known")
	case size > MaxPartSize:
		return fmt.Errorf("part %d has %d bytes, over the limit of %d", n, size, int64(MaxPartSize))
	}
	return nil
}

// CheckCompleted checks the part list of CompleteParts that every
// backend checks the same way: not empty, part numbers in 1..MaxParts
// and ascending.
func CheckCompleted(parts []CompletedPart) error {
	if len(parts) == 0 {
		return errors.New("no parts")
	}
	for i, p := range parts {
		if p.N < 1 || p.N > MaxParts {
			return fmt.Errorf("part number %d is not in 1..%d", p.N, MaxParts)
		}
		if i > 0 && p.N <= parts[i-1].N {
			return fmt.Errorf("part %d follows part %d: parts must be listed in ascending order", p.N, parts[i-1].N)
		}
	}
	return nil
}

// ExactReader returns a reader over body that fails, rather than end,
// when body is shorter or longer than size: what UploadPart reads.
func ExactReader(body io.Reader, size int64) io.Reader {
	return &exactReader{r: body, left: size}
}

type exactReader struct {
	r    io.Reader
	left int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left == 0 {
		return 0, e.end()
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	switch {
	case err == io.EOF && e.left > 0:
		return n, fmt.Errorf("body ended %d bytes short of its declared size: %w", e.left, io.ErrUnexpectedEOF)
	case err == io.EOF:
		return n, io.EOF
	case err == nil && e.left == 0:
		// The Read that returns the last byte looks for one more: an
		// upload of a known size may stop reading here, and never see a
		// longer body otherwise.
		return n, e.end()
	}
	return n, err
}

// end reads past the declared size: io.EOF when the body ends there.
func (e *exactReader) end() error {
	var b [1]byte
	n, err := io.ReadFull(e.r, b[:])
	if n > 0 {
		return errors.New("body is longer than its declared size")
	}
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err
	}
	return io.EOF
}
