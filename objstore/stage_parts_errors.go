package objstore

import (
	"errors"
	"fmt"

	"github.com/fencedstore/fence/objstore/driver"
)

// Limits of a value staged in parts (Store.StageParts), S3's.
const (
	// MaxParts is the highest part number.
	MaxParts = driver.MaxParts
	// MinPartSize is the smallest size of a part that is not the last
	// one of a value: Complete refuses a smaller one, on every backend,
	// with ErrPartTooSmall.
	MinPartSize = driver.MinPartSize
	// MaxPartSize is the largest size of one part.
	MaxPartSize = driver.MaxPartSize
)

// The errors of PartUpload.Complete's part list, each reported as a
// *PartError: S3's InvalidPart, InvalidPartOrder and EntityTooSmall.
var (
	// ErrInvalidPart: the list names a part that was not uploaded (or a
	// number outside 1..MaxParts), or it is empty.
	ErrInvalidPart = errors.New("objstore: invalid part")
	// ErrInvalidPartOrder: the list is not in ascending order of part
	// numbers (or names a part twice).
	ErrInvalidPartOrder = errors.New("objstore: parts not in ascending order")
	// ErrPartTooSmall: a part other than the last is smaller than
	// MinPartSize. It is driver.ErrPartTooSmall, so a backend's own
	// refusal matches it too.
	ErrPartTooSmall = driver.ErrPartTooSmall
)

// ErrNoSuchUpload: a PartUpload was completed or aborted, so it takes
// no more parts and cannot be completed (S3's NoSuchUpload).
var ErrNoSuchUpload = errors.New("objstore: no such upload in parts (it was completed or aborted)")

// PartError reports a part list that PartUpload.Complete refused before
// it wrote anything; the upload stays open, as S3's does, so a Complete
// with a corrected list or an Abort may follow. It matches one of
// ErrInvalidPart, ErrInvalidPartOrder and ErrPartTooSmall.
type PartError struct {
	Object string // the staged version object the upload writes
	N      int    // the part number the error is about
	Reason string
	class  error
}

func (e *PartError) Error() string {
	return fmt.Sprintf("objstore: complete upload in parts of %q: part %d: %s", e.Object, e.N, e.Reason)
}

func (e *PartError) Is(target error) bool {
	return target == e.class || e.class == ErrPartTooSmall && target == driver.ErrPermanent
}
