package main

import "time"

// skewedClock is a coord.Clock that reads start + offset + rate*elapsed:
// a clock that is off by offset and runs fast (rate > 1) or slow.
type skewedClock struct {
	start  time.Time
	offset time.Duration
	rate   float64
}

func newClock(offset time.Duration, rate float64) *skewedClock {
	if rate <= 0 {
		rate = 1
	}
	return &skewedClock{start: time.Now(), offset: offset, rate: rate}
}

func (c *skewedClock) Now() time.Time {
	el := time.Since(c.start)
	return c.start.Add(c.offset + time.Duration(float64(el)*c.rate))
}
