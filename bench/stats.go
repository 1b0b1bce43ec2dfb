package bench

import (
	"math"
	"slices"
	"time"
)

// Stats summarizes one side of a row.
type Stats struct {
	// N is the number of timed operations.
	N int `json:"n"`
	// P50, P90 and P99 are latency percentiles (nearest rank).
	P50 time.Duration `json:"p50_ns"`
	P90 time.Duration `json:"p90_ns"`
	P99 time.Duration `json:"p99_ns"`
	// OpsPerSec is N over the time the operations took: the sum of their
	// latencies for a sequential row, the wall time of the phases for a
	// throughput row.
	OpsPerSec float64 `json:"ops_per_sec"`
	// PeakRSS is the child process's peak resident memory (VmHWM), for
	// memory rows.
	PeakRSS int64 `json:"peak_rss_bytes,omitempty"`
	// CPU is the client's CPU time (user and system) per operation: the
	// bench process's own for in-process rows (getrusage around each
	// call, so it includes the work of the process's other goroutines
	// meanwhile), the child's for process rows.
	CPU time.Duration `json:"cpu_per_op_ns,omitempty"`
	// AllocBytes and Allocs are the heap bytes and objects the bench
	// process allocated per operation (runtime.MemStats around each
	// call), for in-process rows.
	AllocBytes int64 `json:"alloc_bytes_per_op,omitempty"`
	Allocs     int64 `json:"allocs_per_op,omitempty"`
	// GatewayCPU and StoreCPU are, for the gateway's multipart row, the
	// CPU time per operation of the gateway's process (fenced side) and
	// of the store's server (both sides, when it listens on this
	// machine's loopback), from /proc/PID/stat around each call.
	GatewayCPU time.Duration `json:"gateway_cpu_per_op_ns,omitempty"`
	StoreCPU   time.Duration `json:"store_cpu_per_op_ns,omitempty"`
}

// hasPathCPU reports whether st carries the CPU of processes other than
// the client's.
func (st Stats) hasPathCPU() bool { return st.GatewayCPU > 0 || st.StoreCPU > 0 }

// hasCost reports whether st carries CPU or allocation figures.
func (st Stats) hasCost() bool { return st.CPU > 0 || st.AllocBytes > 0 || st.Allocs > 0 }

// summarize returns the percentiles of lat, with ops/s over the sum of
// the latencies (the rate of one sequential caller).
func summarize(lat []time.Duration) Stats {
	var total time.Duration
	for _, d := range lat {
		total += d
	}
	return summarizeOver(lat, total)
}

// summarizeOver returns the percentiles of lat, with ops/s over wall.
func summarizeOver(lat []time.Duration, wall time.Duration) Stats {
	if len(lat) == 0 {
		return Stats{}
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	st := Stats{N: len(s), P50: percentile(s, 50), P90: percentile(s, 90), P99: percentile(s, 99)}
	if wall > 0 {
		st.OpsPerSec = float64(len(s)) / wall.Seconds()
	}
	return st
}

// percentile returns the nearest-rank p-th percentile of sorted.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := int(math.Ceil(float64(p) / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// ratio returns a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
