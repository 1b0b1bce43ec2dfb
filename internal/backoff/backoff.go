// Package backoff computes jittered exponential pauses between retries.
// Callers bound every retry loop with a context deadline.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff yields pauses that double from Base up to Max, each drawn
// uniformly from [d/2, d] so that racing callers spread out. The zero
// value uses 10ms and 1s. It is not safe for concurrent use.
type Backoff struct {
	Base, Max time.Duration
	attempt   int
}

// Next returns the next pause.
func (b *Backoff) Next() time.Duration {
	base, limit := b.Base, b.Max
	if base <= 0 {
		base = 10 * time.Millisecond
	}
	if limit <= 0 {
		limit = time.Second
	}
	d := base << min(b.attempt, 20)
	if d > limit || d <= 0 {
		d = limit
	}
	b.attempt++
	return Jitter(d)
}

// Reset starts the sequence again at Base.
func (b *Backoff) Reset() { b.attempt = 0 }

// Wait sleeps for the next pause or until ctx ends, returning ctx.Err()
// in that case.
func (b *Backoff) Wait(ctx context.Context) error { return Sleep(ctx, b.Next()) }

// Jitter returns a duration drawn uniformly from [d/2, d].
func Jitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(d-half)+1))
}

// Sleep waits for d or until ctx ends, returning ctx.Err() in that case.
func Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
