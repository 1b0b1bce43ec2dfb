package backoff

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestNextGrowsAndCaps(t *testing.T) {
	b := Backoff{Base: 10 * time.Millisecond, Max: 80 * time.Millisecond}
	for i, hi := range []time.Duration{10, 20, 40, 80, 80, 80} {
		hi *= time.Millisecond
		if d := b.Next(); d < hi/2 || d > hi {
			t.Fatalf("attempt %d: %s; want within [%s, %s]", i, d, hi/2, hi)
		}
	}
	b.Reset()
	if d := b.Next(); d > 10*time.Millisecond {
		t.Fatalf("after Reset: %s", d)
	}
}

func TestSleepHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep on a cancelled context = %v", err)
	}
	if err := Sleep(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
}

func TestWaitStopsAtLimit(t *testing.T) {
	b := Backoff{Base: time.Microsecond, Max: time.Microsecond, Limit: 3}
	for i := range 3 {
		if err := b.Wait(context.Background()); err != nil {
			t.Fatalf("wait %d: %v", i, err)
		}
	}
	b.Reset()
	if err := b.Wait(context.Background()); !errors.Is(err, ErrExhausted) {
		t.Fatalf("wait 4 = %v, want ErrExhausted", err)
	}
	unlimited := Backoff{Base: time.Microsecond, Max: time.Microsecond, Limit: -1}
	for i := range 3 * DefaultLimit {
		if err := unlimited.Wait(context.Background()); err != nil {
			t.Fatalf("unlimited wait %d: %v", i, err)
		}
	}
}
