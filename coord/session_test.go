package coord_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/coordtest"
)

var errFlaky = errors.New("flaky: connection reset")

// faulty wraps a driver: it reports renewals, and can make them fail or
// block until their context ends.
type faulty struct {
	coord.Driver
	mu       sync.Mutex
	fail     bool // Renew fails with errFlaky
	block    bool // Renew blocks until its context ends
	ttls     []time.Duration
	renewed  chan coord.Lease // receives each successful renewal, if there is room
	tried    chan struct{}    // receives each attempt, if there is room
	attempts atomic.Int32
	releases atomic.Int32
}

func newFaulty(d coord.Driver) *faulty {
	return &faulty{Driver: d, renewed: make(chan coord.Lease, 100), tried: make(chan struct{}, 1)}
}

func (f *faulty) set(fail, block bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail, f.block = fail, block
}

func (f *faulty) Renew(ctx context.Context, l coord.Lease, ttl time.Duration) (coord.Lease, error) {
	f.attempts.Add(1)
	select {
	case f.tried <- struct{}{}:
	default:
	}
	f.mu.Lock()
	fail, block := f.fail, f.block
	f.ttls = append(f.ttls, ttl)
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return coord.Lease{}, ctx.Err()
	}
	if fail {
		return coord.Lease{}, errFlaky
	}
	nl, err := f.Driver.Renew(ctx, l, ttl)
	if err == nil {
		select {
		case f.renewed <- nl:
		default:
		}
	}
	return nl, err
}

func (f *faulty) Release(ctx context.Context, l coord.Lease) error {
	f.releases.Add(1)
	return f.Driver.Release(ctx, l)
}

const domain = "jobs/nightly"

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// realLease acquires domain on a memDriver with the system clock.
func realLease(t *testing.T, ttl time.Duration) (*memDriver, *faulty, coord.Lease) {
	t.Helper()
	m := newMemDriver(coord.SystemClock{})
	f := newFaulty(m)
	l, err := coord.New(m).TakeLease(testCtx(t), domain, &coord.TakeOptions{Holder: "A", TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	return m, f, l
}

func waitDone(t *testing.T, s *coord.Session, within time.Duration) time.Time {
	t.Helper()
	select {
	case <-s.Done():
		return time.Now()
	case <-time.After(within):
		t.Fatalf("session still live after %s", within)
		return time.Time{}
	}
}

func waitRenewal(t *testing.T, f *faulty) coord.Lease {
	t.Helper()
	select {
	case l := <-f.renewed:
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no renewal within 10s")
		return coord.Lease{}
	}
}

// TestSessionEndsBeforeExpiryWhenRenewalsFail makes every renewal fail
// after the first and checks that Ctx is cancelled before the lease
// expires at the coordinator.
func TestSessionEndsBeforeExpiryWhenRenewalsFail(t *testing.T) {
	for _, mode := range []string{"fail", "block"} {
		t.Run(mode, func(t *testing.T) {
			m, f, l := realLease(t, 600*time.Millisecond)
			opts := &coord.SessionOptions{TTL: 600 * time.Millisecond, RenewEvery: 200 * time.Millisecond, SafetyMargin: 200 * time.Millisecond}
			s := coord.NewSession(testCtx(t), coord.New(f), l, opts)
			renewed := waitRenewal(t, f)
			f.set(mode == "fail", mode == "block")
			before := f.attempts.Load()
			doneAt := waitDone(t, s, 5*time.Second)

			st, err := m.State(testCtx(t), domain)
			if err != nil {
				t.Fatal(err)
			}
			if st.Holder != "A" || st.Token != l.Token {
				t.Fatalf("State = %+v; want still held by A with token %d", st, l.Token)
			}
			if !doneAt.Before(st.Expires) {
				t.Fatalf("Ctx cancelled at %s, not before the coordinator's expiry %s", doneAt.Format(time.StampMicro), st.Expires.Format(time.StampMicro))
			}
			if got := s.Lease(); !got.Expires.Equal(st.Expires) || got.Expires.Before(renewed.Expires) {
				t.Fatalf("Session.Lease() = %+v; want the last confirmed expiry %s", got, st.Expires)
			}
			err = s.Err()
			if !errors.Is(err, coord.ErrLeaseLost) || !errors.Is(context.Cause(s.Ctx()), coord.ErrLeaseLost) {
				t.Fatalf("Err = %v; want ErrLeaseLost", err)
			}
			if mode == "fail" {
				if !errors.Is(err, errFlaky) {
					t.Fatalf("Err = %v; want it to carry the last renewal error", err)
				}
				if n := f.attempts.Load() - before; n < 3 {
					t.Fatalf("%d renewal attempts after the failures began; want quick retries", n)
				}
			}
			// The lease may still be live: Release frees it, or finds it
			// already expired.
			if err := s.Release(testCtx(t)); err != nil && !errors.Is(err, coord.ErrLeaseLost) {
				t.Fatalf("Release: %v", err)
			}
		})
	}
}

func TestSessionRenews(t *testing.T) {
	_, f, l := realLease(t, 600*time.Millisecond)
	s := coord.NewSession(testCtx(t), coord.New(f), l, nil)
	first := waitRenewal(t, f)
	second := waitRenewal(t, f)
	if first.Token != l.Token || !second.Expires.After(first.Expires) || !first.Expires.After(l.Expires) {
		t.Fatalf("renewals %+v then %+v of %+v; want the same token and later expiries", first, second, l)
	}
	// The second renewal started after the first was recorded.
	if got := s.Lease(); got.Token != l.Token || got.Expires.Before(first.Expires) {
		t.Fatalf("Lease() = %+v; want token %d, expiry at least %s", got, l.Token, first.Expires)
	}
	f.mu.Lock()
	ttl := f.ttls[0]
	f.mu.Unlock()
	if ttl != 600*time.Millisecond {
		t.Fatalf("renewed with TTL %s; want the lease's remaining time rounded, 600ms", ttl)
	}
	if s.Err() != nil {
		t.Fatalf("Err of a live session = %v", s.Err())
	}
	if err := s.Release(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(s.Err(), coord.ErrReleased) {
		t.Fatalf("Err after Release = %v; want ErrReleased", s.Err())
	}
	if err := s.Release(testCtx(t)); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	if n := f.releases.Load(); n != 1 {
		t.Fatalf("%d releases at the coordinator; want 1", n)
	}
}

func TestSessionReleaseDuringBlockedRenewal(t *testing.T) {
	m, f, l := realLease(t, 600*time.Millisecond)
	f.set(false, true)
	s := coord.NewSession(testCtx(t), coord.New(f), l, nil)
	select {
	case <-f.tried:
	case <-s.Done():
		t.Fatalf("session ended before its first renewal: %v", s.Err())
	}
	if err := s.Release(testCtx(t)); err != nil {
		t.Fatalf("Release during a blocked renewal: %v", err)
	}
	if st, _ := m.State(testCtx(t), domain); st.Holder != "" {
		t.Fatalf("State after Release = %+v", st)
	}
}

func TestSessionParentCancelled(t *testing.T) {
	m, f, l := realLease(t, 10*time.Second)
	parent, cancel := context.WithCancel(testCtx(t))
	s := coord.NewSession(parent, coord.New(f), l, nil)
	cancel()
	waitDone(t, s, 5*time.Second)
	if !errors.Is(s.Err(), context.Canceled) {
		t.Fatalf("Err = %v; want context.Canceled", s.Err())
	}
	if st, _ := m.State(testCtx(t), domain); st.Holder != "A" {
		t.Fatalf("cancelling the parent released the lease: %+v", st)
	}
	if err := s.Release(testCtx(t)); err != nil {
		t.Fatalf("Release after the parent ended: %v", err)
	}
	if st, _ := m.State(testCtx(t), domain); st.Holder != "" {
		t.Fatalf("State after Release = %+v", st)
	}
}

func TestSessionRejectsBadOptions(t *testing.T) {
	clk := coordtest.NewFakeClock(coordtest.FakeStart)
	m := newMemDriver(clk)
	l, err := m.TryAcquire(testCtx(t), coord.Request{Domain: domain, Holder: "A", TTL: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    *coord.Coordinator
		l    coord.Lease
		opts coord.SessionOptions
		want string
	}{
		{"RenewPlusMarginTooLong", coord.New(m), l, coord.SessionOptions{TTL: 3 * time.Second, RenewEvery: 2 * time.Second, SafetyMargin: time.Second}, "RenewEvery=2s"},
		{"TTLTooShort", coord.New(m), l, coord.SessionOptions{TTL: 50 * time.Millisecond}, `"50ms"`},
		{"NegativeMargin", coord.New(m), l, coord.SessionOptions{SafetyMargin: -time.Second}, "SafetyMargin=-1s"},
		{"NilCoordinator", nil, l, coord.SessionOptions{}, "Coordinator"},
		{"TokenZero", coord.New(m), coord.Lease{Domain: domain, Holder: "A", Expires: l.Expires}, coord.SessionOptions{}, `token "0"`},
		{"NoHolder", coord.New(m), coord.Lease{Domain: domain, Token: 1, Expires: l.Expires}, coord.SessionOptions{}, "holder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Clock = clk
			s := coord.NewSession(testCtx(t), tc.c, tc.l, &opts)
			select {
			case <-s.Done():
			default:
				t.Fatal("session with bad options is live")
			}
			if err := s.Err(); !errors.Is(err, coord.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Err = %v; want ErrInvalid mentioning %s", err, tc.want)
			}
		})
	}
}

func TestSessionOnExpiredLease(t *testing.T) {
	clk := coordtest.NewFakeClock(coordtest.FakeStart)
	m := newMemDriver(clk)
	l, err := m.TryAcquire(testCtx(t), coord.Request{Domain: domain, Holder: "A", TTL: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(9500 * time.Millisecond) // inside the default 1s margin
	s := coord.NewSession(testCtx(t), coord.New(m), l, &coord.SessionOptions{TTL: 10 * time.Second, Clock: clk})
	select {
	case <-s.Done():
	default:
		t.Fatal("session on a lease within its safety margin is live")
	}
	if !errors.Is(s.Err(), coord.ErrLeaseLost) {
		t.Fatalf("Err = %v; want ErrLeaseLost", s.Err())
	}
}

// Orphan ends the session (Err matches ErrOrphaned), stops renewing, and
// leaves the lease live at the coordinator, unreleased.
func TestSessionOrphan(t *testing.T) {
	m, f, l := realLease(t, time.Second)
	s := coord.NewSession(testCtx(t), coord.New(f), l, nil)
	got := s.Orphan()
	if got.Token != l.Token || !errors.Is(s.Err(), coord.ErrOrphaned) {
		t.Fatalf("Orphan = %+v, Err %v; want the lease and ErrOrphaned", got, s.Err())
	}
	attempts := f.attempts.Load()
	time.Sleep(500 * time.Millisecond) // past RenewEvery
	if n := f.attempts.Load() - attempts; n != 0 || f.releases.Load() != 0 {
		t.Fatalf("after Orphan: %d renewals, %d releases; want none", n, f.releases.Load())
	}
	st, err := m.State(testCtx(t), domain)
	if err != nil || st.Holder != "A" || st.Token != l.Token {
		t.Fatalf("state after Orphan: %+v, %v; want A's lease still recorded", st, err)
	}
}
