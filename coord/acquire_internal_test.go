package coord

import (
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/backoff"
)

func TestPollDelay(t *testing.T) {
	var skew backoff.Backoff
	for range 100 {
		if d := pollDelay(5*time.Second, &skew); d < pollMax/2 || d > pollMax {
			t.Fatalf("5s left: wait %s; want a jittered poll within %s", d, pollMax)
		}
		if d := pollDelay(300*time.Millisecond, &skew); d <= 300*time.Millisecond || d > 325*time.Millisecond {
			t.Fatalf("300ms left: wait %s; want just after the expiry", d)
		}
	}
	var last time.Duration
	for i := range 8 {
		d := pollDelay(-time.Second, &skew)
		if d <= 0 || d > pollMax {
			t.Fatalf("expired by our clock, attempt %d: wait %s; want a backoff up to %s", i, d, pollMax)
		}
		last = d
	}
	if last < pollMax/2 {
		t.Fatalf("backoff after 8 attempts is %s; want it to have grown to about %s", last, pollMax)
	}
}
