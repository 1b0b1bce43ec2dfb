package faulty

import (
	"context"
	"time"
)

// Fault says how the Backend misbehaves on one call; the package
// documentation gives the order its parts take effect in. The zero value
// runs the call normally.
type Fault struct {
	// Delay waits this long before the call. If ctx ends first the call
	// returns ctx's error without being applied.
	Delay time.Duration
	// Pause blocks the call until the channel is closed. If ctx ends
	// first the call returns ctx's error without being applied.
	Pause <-chan struct{}
	// Err fails the call without applying it.
	Err error
	// Then runs after the call was applied, before its reply returns. It
	// does not run if the call failed.
	Then func()
	// DropReply applies the call, then returns an error matching
	// ErrReplyDropped instead of its reply.
	DropReply bool
	// ErrAfter applies the call, then returns this error instead of its
	// reply (for example a 503 after the write landed). DropReply wins
	// when both are set.
	ErrAfter error
}

// before runs the part of f that comes before the call. A non-nil error
// means the call must not be applied.
func (f Fault) before(ctx context.Context) error {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	if f.Pause != nil {
		select {
		case <-f.Pause:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return f.Err
}

// after runs the part of f that comes after a call that succeeded, and
// returns the error that replaces its reply, or nil.
func (f Fault) after() error {
	if f.Then != nil {
		f.Then()
	}
	if f.DropReply {
		return ErrReplyDropped
	}
	return f.ErrAfter
}
