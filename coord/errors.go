package coord

import (
	"errors"
	"fmt"
	"time"

	"github.com/fencedstore/fence/rules"
)

// Errors. Test for them with errors.Is; the typed errors below carry
// details and are reachable with errors.As.
var (
	// ErrLeaseHeld: another holder has a live lease. The *HeldError names it.
	ErrLeaseHeld = errors.New("coord: lease held by another holder")
	// ErrLeaseLost: the lease expired, was released, or another holder took
	// it; its holder must stop writing. It matches fence.ErrStale, as
	// objstore.ErrFenced does.
	ErrLeaseLost = rules.Kind("coord: lease lost", rules.ErrStale)
	// ErrReleased: the session was ended by Session.Release.
	ErrReleased = errors.New("coord: lease released")
	// ErrOrphaned: the session was ended by Session.Orphan; its lease
	// lives on, unrenewed, until it expires.
	ErrOrphaned = errors.New("coord: session orphaned")
	// ErrInvalid is an alias of objstore.ErrInvalid (the same value),
	// kept so that old code compiles: test rejected arguments with
	// objstore.ErrInvalid, whichever package rejected them.
	ErrInvalid = rules.ErrInvalid
	// ErrCorruptRecord: a lease record cannot be decoded; nothing is
	// written over it. Its *CorruptRecordError names the record.
	ErrCorruptRecord = errors.New("coord: corrupt lease record")
	// ErrOutcomeUnknown: a change to a lease record may or may not have
	// applied (its reply was lost, or the store answered ambiguously), and
	// reading the record back could not tell before the operation ended.
	// Its *UnknownOutcomeError says which operation. After an acquire,
	// take the lease again (the token, if one was issued, is spent); after
	// a renew, treat the lease as lost; a release that ends this way
	// leaves the lease to expire.
	ErrOutcomeUnknown = errors.New("coord: outcome unknown")
)

// UnknownOutcomeError reports a change to a lease record whose outcome
// could not be settled.
type UnknownOutcomeError struct {
	Op     string // "acquire", "renew" or "release"
	Domain string
	// Ambiguous is the write's error that may hide a change that applied;
	// Err is why reading back did not settle it.
	Ambiguous, Err error
}

func (e *UnknownOutcomeError) Error() string {
	return fmt.Sprintf("coord: %s %q: outcome unknown: a change may have applied (%v), and reading the record back did not tell: %v", e.Op, e.Domain, e.Ambiguous, e.Err)
}

// Is makes errors.Is(err, ErrOutcomeUnknown) true.
func (e *UnknownOutcomeError) Is(target error) bool { return target == ErrOutcomeUnknown }

// Unwrap returns both errors, so that errors.Is sees, for example, the
// context's end.
func (e *UnknownOutcomeError) Unwrap() []error { return []error{e.Ambiguous, e.Err} }

// HeldError names the holder of a live lease.
type HeldError struct {
	Domain  string
	Holder  string
	Token   uint64
	Expires time.Time
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("coord: lease on %q held by %q (token %d) until %s", e.Domain, e.Holder, e.Token, e.Expires.UTC().Format(time.RFC3339Nano))
}

// Is makes errors.Is(err, ErrLeaseHeld) true.
func (e *HeldError) Is(target error) bool { return target == ErrLeaseHeld }

// InvalidError names an argument that was rejected before anything was
// sent (rules.InvalidError, shared with objstore).
type InvalidError = rules.InvalidError

// CorruptRecordError names a lease record that cannot be trusted. Key
// identifies it in its store (an object key, a table item).
type CorruptRecordError struct {
	Key    string
	Reason string
	Err    error // the decoding error, if any
}

func (e *CorruptRecordError) Error() string {
	s := fmt.Sprintf("coord: corrupt lease record %q: %s", e.Key, e.Reason)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s + "; restore the record from a backup or the bucket's versioning; see docs/manifest.md"
}

// Is makes errors.Is(err, ErrCorruptRecord) true.
func (e *CorruptRecordError) Is(target error) bool { return target == ErrCorruptRecord }
func (e *CorruptRecordError) Unwrap() error        { return e.Err }
