package coord

import "time"

// Clock tells the time. Drivers judge expiry with it and sessions
// measure how long ago a renewal was confirmed with it; waiting is always
// done with real timers. Tests substitute a fake (coordtest.FakeClock) to
// make expiry deterministic.
type Clock interface {
	Now() time.Time
}

// SystemClock is the Clock of the local machine: time.Now, monotonic
// reading included. Its zero value is ready to use.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// orSystem returns c, or SystemClock when c is nil.
func orSystem(c Clock) Clock {
	if c == nil {
		return SystemClock{}
	}
	return c
}
