// Package cost measures what calls cost the client process: CPU time
// (user and system, from getrusage) and heap allocations (bytes and
// objects, as testing's -benchmem counts them). Benchmarks use it to
// compare two calls interleaved in one run, each side reported per
// operation together with their ratio. It asserts nothing: a benchmark
// prints figures, and no test fails on them.
package cost

import (
	"runtime"
	"time"
)

// Usage is what one or more calls cost.
type Usage struct {
	CPU    time.Duration // user + system time of the whole process
	Bytes  uint64        // heap bytes allocated
	Allocs uint64        // heap objects allocated
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	return Usage{CPU: u.CPU + v.CPU, Bytes: u.Bytes + v.Bytes, Allocs: u.Allocs + v.Allocs}
}

// Measure calls fn and returns what it cost. The allocation counters are
// read with runtime.ReadMemStats, which stops the world, outside the CPU
// window, so that reading them adds nothing to the CPU time measured;
// only the two getrusage calls around fn do (about a microsecond).
// Whatever else the process does while fn runs (other goroutines, the
// garbage collector's background work) counts too: run nothing else.
func Measure(fn func() error) (Usage, error) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0 := processCPU()
	err := fn()
	c1 := processCPU()
	runtime.ReadMemStats(&m1)
	return Usage{CPU: c1 - c0, Bytes: m1.TotalAlloc - m0.TotalAlloc, Allocs: m1.Mallocs - m0.Mallocs}, err
}
