package objstore

import (
	"context"
	"errors"
	"time"

	"github.com/fencedstore/fence/observe"
)

// observeCommit reports the end of one Commit to Options.Observer.
func (s *Store) observeCommit(ctx context.Context, start time.Time, domain string, token uint64, changes []Change, opts *CommitOptions, res CommitResult, err error) {
	if s.opts.Observer == nil {
		return
	}
	e := observe.Commit{Domain: domain, Token: token, Holder: s.opts.Holder, ID: res.ID, Outcome: observe.Accepted, Err: err}
	if opts != nil {
		if opts.Holder != "" {
			e.Holder = opts.Holder
		}
		e.Retry = opts.ID != ""
		if e.ID == "" {
			e.ID = opts.ID
		}
	}
	if deadline, ok := observe.LeaseDeadline(ctx); ok {
		e.LeaseRemaining = deadline.Sub(start)
	}
	for _, ch := range changes {
		if ch.Delete {
			e.Deletes++
		} else {
			e.Puts++
		}
	}
	e.Fence = len(changes) == 0
	var (
		fenced  *FencedError
		unknown *UnknownOutcomeError
	)
	switch {
	case err == nil:
		e.Seq, e.Highest, e.Settled = res.Seq, res.Highest, res.Recovered
	case errors.As(err, &fenced):
		e.Outcome, e.Highest = observe.Fenced, fenced.Highest
		if e.ID == "" {
			e.ID = fenced.CommitID
		}
	case errors.As(err, &unknown):
		e.Outcome = observe.Unknown
		e.ID = unknown.CommitID
	default:
		e.Outcome = observe.Failed
	}
	if e.Retry && e.Outcome != observe.Unknown {
		e.Settled = true
	}
	e.Duration = time.Since(start)
	s.opts.Observer.Commit(ctx, e)
}
