package job

import (
	"context"
	"time"

	"github.com/fencedstore/fence/coord"
)

// DefaultCheckEvery is how often Run reads the lease record while the
// command runs, whatever the lease's TTL.
const DefaultCheckEvery = 10 * time.Second

// watch closes the returned channel as soon as the lease of sess may be
// lost: the session ended (a renewal was refused, or none was confirmed
// in time), or a read of the lease record, one every every, shows that it
// is no longer l's (a newer token was issued, or it was released). It
// stops when ctx ends. After the channel is closed, state returns the
// record as last read and whether that read succeeded.
func watch(ctx context.Context, c *coord.Coordinator, sess *coord.Session, every time.Duration) (lost <-chan struct{}, why func() (coord.State, bool, error)) {
	l := sess.Lease()
	ch := make(chan struct{})
	var (
		st    coord.State
		read  bool
		cause error
	)
	go func() {
		defer close(ch)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-sess.Done():
				cause = sess.Err()
				// One more read, to say what happened.
				rctx, cancel := context.WithTimeout(ctx, every)
				s, err := c.State(rctx, l.Domain)
				cancel()
				st, read = s, err == nil
				return
			case <-t.C:
				rctx, cancel := context.WithTimeout(ctx, every)
				s, err := c.State(rctx, l.Domain)
				cancel()
				if err != nil {
					continue // the session's renewals decide about an unreachable coordinator
				}
				if s.Token != l.Token || s.Holder != l.Holder {
					st, read = s, true
					cause = coord.ErrLeaseLost
					return
				}
			}
		}
	}()
	return ch, func() (coord.State, bool, error) { return st, read, cause }
}
