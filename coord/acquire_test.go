package coord_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/coordtest"
	"github.com/fencedstore/fence/objstore"
)

func TestAcquireDefaults(t *testing.T) {
	clk := coordtest.NewFakeClock(coordtest.FakeStart)
	c := coord.New(newMemDriver(clk))
	l, err := c.TakeLease(testCtx(t), domain, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Holder != coord.DefaultHolder() || !strings.Contains(l.Holder, "/") {
		t.Fatalf("default holder %q; want %q (<hostname>/<pid>)", l.Holder, coord.DefaultHolder())
	}
	if want := clk.Now().Add(coord.DefaultTTL); !l.Expires.Equal(want) {
		t.Fatalf("default expiry %s; want now+%s", l.Expires, coord.DefaultTTL)
	}
}

func TestAcquireValidates(t *testing.T) {
	c := coord.New(newMemDriver(coord.SystemClock{}))
	for _, tc := range []struct {
		domain string
		opts   coord.TakeOptions
		want   string // in the message
	}{
		{"a//b", coord.TakeOptions{}, `invalid domain "a//b": contains an empty path segment`},
		{"x/_fence", coord.TakeOptions{}, `invalid domain "x/_fence"`},
		{domain, coord.TakeOptions{Holder: "a\nb"}, `invalid holder "a\nb": contains control character U+000A`},
		{domain, coord.TakeOptions{Holder: strings.Repeat("h", 257)}, "257 bytes, over the limit of 256"},
		{domain, coord.TakeOptions{TTL: 99 * time.Millisecond}, `invalid ttl "99ms": must be between 100ms and 24h0m0s`},
		{domain, coord.TakeOptions{TTL: -time.Second}, `invalid ttl "-1s"`},
		{domain, coord.TakeOptions{Floor: objstore.MaxToken}, `invalid floor "9223372036854775807"`},
	} {
		_, err := c.TakeLease(testCtx(t), tc.domain, &tc.opts)
		if !errors.Is(err, coord.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Acquire(%q, %+v) = %v; want ErrInvalid containing %q", tc.domain, tc.opts, err, tc.want)
		}
	}
	_, err := c.TakeLease(testCtx(t), "/abs", nil)
	var ie *coord.InvalidError
	if !errors.Is(err, objstore.ErrInvalid) || !errors.As(err, &ie) || ie.What != "domain" || ie.Value != "/abs" {
		t.Fatalf("Acquire(/abs) = %#v; want an *InvalidError for the domain matching objstore.ErrInvalid", err)
	}
	if st, _ := c.State(testCtx(t), domain); st.Token != 0 {
		t.Fatalf("an invalid request reached the coordinator: %+v", st)
	}
}

func TestAcquireNoWait(t *testing.T) {
	c := coord.New(newMemDriver(coord.SystemClock{}))
	a, err := c.TakeLease(testCtx(t), domain, &coord.TakeOptions{Holder: "A"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.TakeLease(testCtx(t), domain, &coord.TakeOptions{Holder: "B"})
	var he *coord.HeldError
	if !errors.As(err, &he) || he.Holder != "A" || he.Token != a.Token || !he.Expires.Equal(a.Expires) {
		t.Fatalf("Acquire while held = %v; want a HeldError naming A", err)
	}
}

// TestAcquireWaitsForExpiry checks that a waiter gets the lease once the
// holder's expires, with a higher token.
func TestAcquireWaitsForExpiry(t *testing.T) {
	c := coord.New(newMemDriver(coord.SystemClock{}))
	a, err := c.TakeLease(testCtx(t), domain, &coord.TakeOptions{Holder: "A", TTL: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.TakeLease(testCtx(t), domain, &coord.TakeOptions{Holder: "B", TTL: time.Second, Wait: true})
	got := time.Now()
	if err != nil {
		t.Fatalf("Acquire with Wait: %v", err)
	}
	if b.Token <= a.Token || got.Before(a.Expires) {
		t.Fatalf("waiter got %+v at %s; want a higher token than %d, after %s", b, got, a.Token, a.Expires)
	}
	// How promptly is a figure, not an assertion: timers overshoot on a
	// loaded machine.
	t.Logf("waiter acquired %s after the expiry", got.Sub(a.Expires))
}

func TestAcquireWaitHonoursContext(t *testing.T) {
	c := coord.New(newMemDriver(coord.SystemClock{}))
	if _, err := c.TakeLease(testCtx(t), domain, &coord.TakeOptions{Holder: "A"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.TakeLease(ctx, domain, &coord.TakeOptions{Holder: "B", Wait: true})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, coord.ErrLeaseHeld) {
		t.Fatalf("Acquire past its deadline = %v; want DeadlineExceeded and the last HeldError", err)
	}
	if d := time.Since(start); d > 10*time.Second { // bounded, generously for a loaded machine
		t.Fatalf("Acquire returned %s after a 150ms deadline", d)
	}
}

// errDriver fails every TryAcquire.
type errDriver struct{ memDriver }

var errDown = errors.New("coordinator down")

func (*errDriver) TryAcquire(context.Context, coord.Request) (coord.Lease, error) {
	return coord.Lease{}, errDown
}

func TestAcquireWaitReturnsOtherErrors(t *testing.T) {
	_, err := coord.New(&errDriver{}).TakeLease(testCtx(t), domain, &coord.TakeOptions{Wait: true})
	if !errors.Is(err, errDown) {
		t.Fatalf("Acquire = %v; want the coordinator's error at once", err)
	}
}
