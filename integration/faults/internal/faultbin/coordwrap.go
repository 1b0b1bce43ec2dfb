package main

import (
	"context"
	"errors"
	"sync"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/integration/faults/internal/hist"
)

// recordingDriver records every token its driver issues (the token
// partition of the history) and remembers the last one, so that an
// acquire that fails after obtaining a token still says which.
type recordingDriver struct {
	coord.Driver
	c       *hist.Client
	noFloor bool // negative control: ignore the store's floor

	mu   sync.Mutex
	last uint64
}

func (r *recordingDriver) TryAcquire(ctx context.Context, req coord.Request) (coord.Lease, error) {
	if r.noFloor {
		req.Floor = 0
	}
	rec := r.c.Start(hist.OpIssue, hist.Input{Domain: req.Domain, Floor: req.Floor})
	l, err := r.Driver.TryAcquire(ctx, req)
	switch {
	case err == nil:
		r.mu.Lock()
		r.last = l.Token
		r.mu.Unlock()
		r.c.End(rec, hist.OK, hist.Output{Token: l.Token}, nil)
	case errors.Is(err, coord.ErrLeaseHeld):
		// Not an issue: nothing to record.
	default:
		// The update may have applied: the token, if any, is unknown.
		r.c.End(rec, hist.Unknown, hist.Output{}, err)
	}
	return l, err
}

// takeLast returns the token issued since the last call, or 0.
func (r *recordingDriver) takeLast() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.last
	r.last = 0
	return t
}
