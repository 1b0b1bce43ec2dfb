package rules

import (
	"errors"
	"slices"
)

// ErrStale: the caller is no longer provably the holder of its lease,
// whichever layer found out: the store rejected its token because a
// newer one was accepted (objstore.ErrFenced), or its session ended
// because the lease may be lost (coord.ErrLeaseLost). Both match it.
// Users test for it as fence.ErrStale.
var ErrStale = errors.New("fence: stale holder")

// Kind returns a sentinel error whose message is msg and that also
// matches each of parents with errors.Is, so that a class of errors can
// belong to a wider one (objstore.ErrFenced to ErrStale).
func Kind(msg string, parents ...error) error { return &kind{msg, parents} }

type kind struct {
	msg     string
	parents []error
}

func (k *kind) Error() string { return k.msg }

// Is makes errors.Is(k, parent) true for each of k's parents.
func (k *kind) Is(target error) bool { return slices.Contains(k.parents, target) }
