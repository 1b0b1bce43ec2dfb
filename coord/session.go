package coord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/fencedstore/fence/internal/backoff"
)

// SessionOptions tunes a Session. nil or zero fields mean defaults.
type SessionOptions struct {
	// TTL is the duration each renewal asks for. Default: the lease's
	// remaining time at NewSession rounded to 100ms (about the TTL it was
	// acquired with), or DefaultTTL when that is below MinTTL.
	TTL time.Duration
	// RenewEvery is the pause between the start of one confirmed renewal
	// and the next. Default TTL/3.
	RenewEvery time.Duration
	// SafetyMargin is how long before the lease could expire the session
	// gives up on it: Ctx is cancelled once TTL-SafetyMargin has passed
	// since the start of the last confirmed renewal with no newer one
	// confirmed. Default TTL/10. RenewEvery+SafetyMargin must be less
	// than TTL.
	SafetyMargin time.Duration
	// Clock measures elapsed time; waiting uses real timers. Default
	// SystemClock.
	Clock Clock
	// Logger receives renewal failures and the session's end. Default:
	// discard.
	Logger *slog.Logger
}

// Session keeps a lease alive by renewing it in the background, like
// etcd's concurrency.Session. Its Ctx is cancelled as soon as the lease
// may have been lost, a safety margin before the coordinator could let it
// expire, so the holder stops starting new work; fencing at the store
// covers work already under way. A Session is safe for concurrent use.
//
// The session ends (Ctx cancelled, Done closed, Err non-nil) when:
//   - the coordinator refuses a renewal (taken over, released, expired):
//     Err matches ErrLeaseLost;
//   - no renewal was confirmed in time (the coordinator is unreachable or
//     slow): Err matches ErrLeaseLost; the lease may still be live, and
//     Release frees it if so;
//   - the parent context ends: Err is its error; renewals stop and the
//     lease is left to expire unless Release is called;
//   - Release is called: Err matches ErrReleased;
//   - NewSession was given invalid options or lease: Err matches
//     ErrInvalid.
//
// context.Cause(s.Ctx()) returns the same error as Err.
type Session struct {
	c      *Coordinator
	o      SessionOptions
	ctx    context.Context
	cancel context.CancelCauseFunc

	stop     chan struct{} // closed by Release
	stopOnce sync.Once
	loopDone chan struct{} // closed when the renewal loop has returned

	mu       sync.Mutex
	lease    Lease
	deadline time.Time // by the session's clock: when it gives the lease up
	released bool

	releaseMu sync.Mutex // serializes Release calls
}

// NewSession starts keeping l alive. It does not block: invalid options or
// a lease that is already within the safety margin of its expiry end the
// session at once, with Err saying why. ctx bounds the session's life,
// not only its start: renewals go on until Release is called, ctx ends or
// the lease is lost.
func NewSession(ctx context.Context, c *Coordinator, l Lease, opts *SessionOptions) *Session {
	var o SessionOptions
	if opts != nil {
		o = *opts
	}
	o.Clock = orSystem(o.Clock)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	now := o.Clock.Now()
	if o.TTL == 0 {
		o.TTL = l.Expires.Sub(now).Round(100 * time.Millisecond)
		if o.TTL < MinTTL || l.Expires.IsZero() {
			o.TTL = DefaultTTL
		}
	}
	if o.RenewEvery == 0 {
		o.RenewEvery = o.TTL / 3
	}
	if o.SafetyMargin == 0 {
		o.SafetyMargin = o.TTL / 10
	}
	sctx, cancel := context.WithCancelCause(ctx)
	s := &Session{
		c:        c,
		o:        o,
		ctx:      sctx,
		cancel:   cancel,
		stop:     make(chan struct{}),
		loopDone: make(chan struct{}),
		lease:    l,
	}
	if err := validateSession(c, l, o); err != nil {
		s.end(err)
		close(s.loopDone)
		return s
	}
	deadline := l.Expires.Add(-o.SafetyMargin)
	s.deadline = deadline
	if !now.Before(deadline) {
		s.end(fmt.Errorf("coord: session on %q (holder %q, token %d): %w: it expires at %s, within the safety margin of %s", l.Domain, l.Holder, l.Token, ErrLeaseLost, l.Expires.Format(time.RFC3339Nano), o.SafetyMargin))
		close(s.loopDone)
		return s
	}
	// Renew RenewEvery after the lease's estimated start, and no later
	// than RenewEvery from now.
	next := l.Expires.Add(o.RenewEvery - o.TTL)
	if later := now.Add(o.RenewEvery); next.After(later) {
		next = later
	}
	go s.run(deadline, next)
	return s
}

func validateSession(c *Coordinator, l Lease, o SessionOptions) error {
	bad := func(reason string) error {
		return &InvalidError{What: "option", Value: fmt.Sprintf("TTL=%s RenewEvery=%s SafetyMargin=%s", o.TTL, o.RenewEvery, o.SafetyMargin), Reason: reason}
	}
	switch {
	case c == nil:
		return &InvalidError{What: "option", Value: "nil", Reason: "a session needs a Coordinator"}
	case o.RenewEvery < 0 || o.SafetyMargin < 0:
		return bad("RenewEvery and SafetyMargin must not be negative")
	case o.RenewEvery+o.SafetyMargin >= o.TTL:
		return bad("RenewEvery + SafetyMargin must be less than TTL")
	}
	if err := ValidateTTL(o.TTL); err != nil {
		return err
	}
	return ValidateLease(l)
}

// Deadline returns the time, by the session's clock, at which the session
// gives the lease up unless a renewal is confirmed before: the end of the
// protected window as of the last confirmed renewal.
func (s *Session) Deadline() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deadline
}

// Ctx returns a context that is cancelled as soon as the lease may have
// been lost. Start protected work under it.
func (s *Session) Ctx() context.Context { return s.ctx }

// Done is closed when the session ends; it is Ctx().Done().
func (s *Session) Done() <-chan struct{} { return s.ctx.Done() }

// Err returns nil while the session is live and, once it has ended, why:
// an error matching ErrLeaseLost, ErrReleased, ErrOrphaned or
// ErrInvalid, or the parent context's error.
func (s *Session) Err() error {
	if s.ctx.Err() == nil {
		return nil
	}
	return context.Cause(s.ctx)
}

// Lease returns the lease as last confirmed: its token never changes, its
// Expires moves forward with each renewal.
func (s *Session) Lease() Lease {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lease
}

// Release ends the session: it cancels Ctx first, so no new work starts,
// stops renewing, then releases the lease at the coordinator. It fails
// with ErrLeaseLost if the lease had already been lost, and may be
// retried after other failures; once it has succeeded it returns nil.
// Release works after the session ended for another reason too (for
// example its parent context ended), freeing a lease that may still be
// live.
func (s *Session) Release(ctx context.Context) error {
	s.releaseMu.Lock()
	defer s.releaseMu.Unlock()
	s.end(ErrReleased)
	s.stopOnce.Do(func() { close(s.stop) })
	select {
	case <-s.loopDone:
	case <-ctx.Done():
		return fmt.Errorf("coord: release %q: waiting for the renewal in flight: %w", s.Lease().Domain, ctx.Err())
	}
	l := s.Lease()
	s.mu.Lock()
	released := s.released
	s.mu.Unlock()
	if released {
		return nil
	}
	if s.c == nil {
		return s.Err()
	}
	if err := s.c.Release(ctx, l); err != nil {
		return fmt.Errorf("coord: release %q (token %d): %w", l.Domain, l.Token, err)
	}
	s.mu.Lock()
	s.released = true
	s.mu.Unlock()
	s.o.Logger.Debug("coord: lease released", "domain", l.Domain, "token", l.Token)
	return nil
}

// Orphan ends the session without releasing its lease, as etcd's
// Session.Orphan does: Ctx is cancelled (Err matches ErrOrphaned) and
// renewals stop, and the lease, which it returns as last confirmed, stays
// live at the coordinator until it expires. It is for handing the lease
// to something that outlives the session, such as a command that prints
// the token and exits.
func (s *Session) Orphan() Lease {
	s.end(ErrOrphaned)
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.loopDone
	return s.Lease()
}

// end cancels Ctx with cause err unless it has ended already.
func (s *Session) end(err error) {
	if s.ctx.Err() != nil {
		return
	}
	s.cancel(err)
	if !errors.Is(err, ErrReleased) && !errors.Is(err, ErrOrphaned) {
		l := s.Lease()
		s.o.Logger.Warn("coord: session ended", "domain", l.Domain, "holder", l.Holder, "token", l.Token, "err", context.Cause(s.ctx))
	}
}

type renewal struct {
	lease Lease
	err   error
}

// attempt is one renewal call in flight.
type attempt struct {
	start  time.Time
	result chan renewal
	cancel context.CancelFunc
}

// run renews until the session ends. deadline is when the lease may be
// lost unless a renewal is confirmed first; next is when to renew. Both
// are read on the session's Clock; the waits between are real timers.
func (s *Session) run(deadline, next time.Time) {
	defer close(s.loopDone)
	var (
		clk      = s.o.Clock
		bo       = backoff.Backoff{Base: min(25*time.Millisecond, s.o.RenewEvery/4), Max: min(time.Second, s.o.RenewEvery)}
		inflight *attempt
		lastErr  error
	)
	defer func() {
		if inflight != nil {
			inflight.cancel()
			<-inflight.result
		}
	}()
	for {
		now := clk.Now()
		if !now.Before(deadline) {
			err := s.lostErr(lastErr)
			s.c.observeSessionLost(s.ctx, s.Lease(), err)
			s.end(err)
			return
		}
		if inflight == nil && !now.Before(next) {
			inflight = s.startRenewal(now, deadline)
		}
		wake := deadline
		var result <-chan renewal
		if inflight != nil {
			result = inflight.result
		} else if next.Before(wake) {
			wake = next
		}
		timer := time.NewTimer(wake.Sub(now))
		select {
		case <-timer.C:
			continue
		case <-s.stop:
		case <-s.ctx.Done():
		case r := <-result:
			timer.Stop()
			inflight.cancel()
			start := inflight.start
			inflight = nil
			switch {
			case r.err == nil:
				deadline = start.Add(s.o.TTL - s.o.SafetyMargin)
				if d := r.lease.Expires.Add(-s.o.SafetyMargin); d.Before(deadline) {
					deadline = d
				}
				s.mu.Lock()
				s.lease.Expires = r.lease.Expires
				s.deadline = deadline
				s.mu.Unlock()
				next = start.Add(s.o.RenewEvery)
				bo.Reset()
				lastErr = nil
			case errors.Is(r.err, ErrLeaseLost), errors.Is(r.err, ErrInvalid), errors.Is(r.err, ErrCorruptRecord):
				l := s.Lease()
				if errors.Is(r.err, ErrLeaseLost) {
					s.end(fmt.Errorf("coord: session on %q (holder %q, token %d): renewal refused: %w", l.Domain, l.Holder, l.Token, r.err))
				} else {
					s.end(fmt.Errorf("coord: session on %q (holder %q, token %d): %w: renewal failed: %w", l.Domain, l.Holder, l.Token, ErrLeaseLost, r.err))
				}
				return
			default:
				lastErr = r.err
				pause := bo.Next()
				l := s.Lease()
				s.o.Logger.Warn("coord: lease renewal failed; retrying", "domain", l.Domain, "token", l.Token, "retry_in", pause, "err", r.err)
				next = clk.Now().Add(pause)
			}
			continue
		}
		timer.Stop()
		return
	}
}

// startRenewal calls Renew in the background, bounded by the deadline.
func (s *Session) startRenewal(now, deadline time.Time) *attempt {
	ctx, cancel := context.WithTimeout(s.ctx, deadline.Sub(now))
	a := &attempt{start: now, result: make(chan renewal, 1), cancel: cancel}
	go func(l Lease) {
		nl, err := s.c.Renew(ctx, l, s.o.TTL)
		a.result <- renewal{nl, err}
	}(s.Lease())
	return a
}

// lostErr explains a session that could not confirm a renewal in time.
func (s *Session) lostErr(last error) error {
	l := s.Lease()
	msg := fmt.Sprintf("coord: session on %q (holder %q, token %d): %%w: no renewal confirmed within %s (TTL %s less safety margin %s)", l.Domain, l.Holder, l.Token, s.o.TTL-s.o.SafetyMargin, s.o.TTL, s.o.SafetyMargin)
	if last != nil {
		return fmt.Errorf(msg+"; last error: %w", ErrLeaseLost, last)
	}
	return fmt.Errorf(msg, ErrLeaseLost)
}
