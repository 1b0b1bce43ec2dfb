package cost

import (
	"testing"
	"time"
)

// A Side is one of the two calls Pair compares.
type Side struct {
	// Name prefixes the side's metrics: "fence" reports fence-B/op,
	// fence-allocs/op and fence-cpu-ns/op.
	Name string
	Call func() error
}

// Pair calls a and b alternately in b's loop, once each per iteration,
// switching which goes first every iteration so that a warming cache or
// a busy neighbour hits both alike, and reports per call of each side its
// heap bytes, allocations and CPU time (Measure), and a's over b's:
// B-ratio, allocs-ratio and cpu-ratio. ns/op is the wall time of one
// iteration, both calls and the measuring. A call that fails stops the
// benchmark.
func Pair(tb *testing.B, a, b Side) {
	tb.Helper()
	var ua, ub Usage
	n := 0
	for tb.Loop() {
		first, second := a, b
		if n%2 == 1 {
			first, second = b, a
		}
		n++
		u1, err := Measure(first.Call)
		if err != nil {
			tb.Fatalf("%s: %v", first.Name, err)
		}
		u2, err := Measure(second.Call)
		if err != nil {
			tb.Fatalf("%s: %v", second.Name, err)
		}
		if first.Name == a.Name {
			ua, ub = ua.Add(u1), ub.Add(u2)
		} else {
			ua, ub = ua.Add(u2), ub.Add(u1)
		}
	}
	if n == 0 {
		return
	}
	report(tb, a.Name, ua, n)
	report(tb, b.Name, ub, n)
	tb.ReportMetric(ratio(ua.Bytes, ub.Bytes), "B-ratio")
	tb.ReportMetric(ratio(ua.Allocs, ub.Allocs), "allocs-ratio")
	if CPUMeasured {
		tb.ReportMetric(ratio(uint64(ua.CPU), uint64(ub.CPU)), "cpu-ratio")
	}
}

func report(tb *testing.B, name string, u Usage, n int) {
	tb.ReportMetric(float64(u.Bytes)/float64(n), name+"-B/op")
	tb.ReportMetric(float64(u.Allocs)/float64(n), name+"-allocs/op")
	if CPUMeasured {
		tb.ReportMetric(float64(u.CPU/time.Nanosecond)/float64(n), name+"-cpu-ns/op")
	}
}

func ratio(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
