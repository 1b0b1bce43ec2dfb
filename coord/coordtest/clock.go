package coordtest

import (
	"sync"
	"time"
)

// FakeStart is where a zero FakeClock starts.
var FakeStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// FakeClock is a coord.Clock that moves only when told to, so expiry is
// tested by advancing time rather than by sleeping. Its zero value reads
// FakeStart. It is safe for concurrent use.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFakeClock returns a FakeClock reading start.
func NewFakeClock(start time.Time) *FakeClock {
	c := new(FakeClock)
	c.Set(start)
	return c
}

// Now returns the clock's current time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.IsZero() {
		c.now = FakeStart
	}
	return c.now
}

// Advance moves the clock forward by d (backward if d is negative) and
// returns the new time.
func (c *FakeClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now.IsZero() {
		c.now = FakeStart
	}
	c.now = c.now.Add(d)
	return c.now
}

// Set moves the clock to t (without its monotonic reading). Setting the
// zero time makes the clock read FakeStart again.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t.Round(0)
}
