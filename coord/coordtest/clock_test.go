package coordtest

import (
	"sync"
	"testing"
	"time"
)

func TestFakeClock(t *testing.T) {
	var zero FakeClock
	if !zero.Now().Equal(FakeStart) {
		t.Fatalf("zero FakeClock reads %s", zero.Now())
	}
	c := NewFakeClock(FakeStart)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			c.Advance(time.Second)
			_ = c.Now()
		})
	}
	wg.Wait()
	if got := c.Now(); !got.Equal(FakeStart.Add(10 * time.Second)) {
		t.Fatalf("after 10 concurrent 1s advances: %s", got)
	}
	at := time.Now()
	c.Set(at)
	if got := c.Now(); !got.Equal(at) || got != at.Round(0) {
		t.Fatalf("Set(%s) then Now = %s; want it without a monotonic reading", at, got)
	}
}
