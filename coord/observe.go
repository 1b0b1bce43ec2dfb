package coord

import (
	"context"
	"errors"
	"time"

	"github.com/fencedstore/fence/observe"
)

// observeCall reports one call to the driver.
func (c *Coordinator) observeCall(ctx context.Context, op string, start time.Time, err error) {
	if c.o == nil {
		return
	}
	if errors.Is(err, ErrLeaseHeld) || errors.Is(err, ErrLeaseLost) {
		err = nil // answers, not failures
	}
	c.o.Call(ctx, observe.Call{System: observe.Coordinator, Op: op, Duration: time.Since(start), Err: err})
}

// observeAcquire reports one acquisition attempt.
func (c *Coordinator) observeAcquire(ctx context.Context, start time.Time, req Request, l Lease, err error) {
	if c.o == nil {
		return
	}
	c.observeCall(ctx, "acquire", start, err)
	e := observe.Lease{Event: observe.Acquired, Domain: req.Domain, Holder: req.Holder, Token: l.Token, Expires: l.Expires, Err: err, Duration: time.Since(start)}
	var held *HeldError
	switch {
	case err == nil:
	case errors.As(err, &held):
		e.Event, e.OtherHolder, e.OtherToken, e.Expires = observe.Held, held.Holder, held.Token, held.Expires
	default:
		e.Event = observe.CallFailed
	}
	c.o.Lease(ctx, e)
}

// observeLease reports a renewal or release of l: ok on success, Lost
// when the coordinator refused it (naming the lease's holder now, read
// back), CallFailed otherwise.
func (c *Coordinator) observeLease(ctx context.Context, start time.Time, op string, ok observe.LeaseEvent, l Lease, expires time.Time, err error) {
	if c.o == nil {
		return
	}
	c.observeCall(ctx, op, start, err)
	e := observe.Lease{Event: ok, Domain: l.Domain, Holder: l.Holder, Token: l.Token, Expires: expires, Err: err, Duration: time.Since(start)}
	switch {
	case err == nil:
	case errors.Is(err, ErrLeaseLost):
		e.Event = observe.Lost
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		if st, serr := c.d.State(rctx, l.Domain); serr == nil && st.Token != l.Token {
			e.OtherHolder, e.OtherToken = st.Holder, st.Token
		}
		cancel()
	default:
		e.Event = observe.CallFailed
	}
	c.o.Lease(ctx, e)
}

// observeSessionLost reports a session that gave its lease up without a
// refusal from the coordinator (no renewal confirmed in time).
func (c *Coordinator) observeSessionLost(ctx context.Context, l Lease, err error) {
	if c == nil || c.o == nil {
		return
	}
	c.o.Lease(ctx, observe.Lease{Event: observe.Lost, Domain: l.Domain, Holder: l.Holder, Token: l.Token, Err: err})
}
