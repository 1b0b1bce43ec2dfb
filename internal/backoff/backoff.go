// Package backoff computes jittered exponential pauses between retries,
// and bounds how many a retry loop may take: no operation gets a deadline
// it was not given, so the number of retries is what ends a loop whose
// caller set none.
package backoff

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// DefaultLimit is how many pauses Wait allows when Limit is zero: with
// the default Base and Max, about 4 seconds of pauses in all.
const DefaultLimit = 10

// ErrExhausted: Wait was called after its Limit of pauses.
var ErrExhausted = errors.New("retries exhausted")

// Backoff yields pauses that double from Base up to Max, each drawn
// uniformly from [d/2, d] so that racing callers spread out. The zero
// value uses 10ms, 1s and DefaultLimit. It is not safe for concurrent
// use.
type Backoff struct {
	Base, Max time.Duration
	// Limit is how many pauses Wait allows before it fails with
	// ErrExhausted; 0 means DefaultLimit and a negative Limit none (for
	// loops bounded otherwise, such as by a lease's expiry).
	Limit   int
	attempt int
	waits   int
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
// in that case, or fails at once with ErrExhausted when Limit pauses have
// been taken (Reset does not give them back).
func (b *Backoff) Wait(ctx context.Context) error {
	limit := b.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit > 0 && b.waits >= limit {
		return fmt.Errorf("%w after %d retries", ErrExhausted, b.waits)
	}
	b.waits++
	return Sleep(ctx, b.Next())
}

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
