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
