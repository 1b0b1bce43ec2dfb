package objstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// backoff yields exponentially growing, fully jittered pauses between
// retries. All retries of one operation share the caller's deadline, so no
// loop is unbounded.
type backoff struct {
	base, max time.Duration
	attempt   int
}

func newBackoff() *backoff { return &backoff{base: 10 * time.Millisecond, max: time.Second} }

// wait sleeps for the next pause or until ctx ends.
func (b *backoff) wait(ctx context.Context) error {
	d := b.base << min(b.attempt, 16)
	if d > b.max || d <= 0 {
		d = b.max
	}
	b.attempt++
	d = time.Duration(rand.Int64N(int64(d)) + 1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// withDeadline applies the store's default deadline when ctx has none.
func (s *Store) withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.opts.Deadline)
}

// transient reports whether a read error is worth retrying: anything but a
// definite answer (not found), a caller's cancellation, or bad data.
func transient(ctx context.Context, err error) bool {
	switch {
	case err == nil, ctx.Err() != nil:
		return false
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrCorruptManifest), errors.Is(err, ErrInvalid), errors.Is(err, ErrIntegrity):
		return false
	}
	return true
}
