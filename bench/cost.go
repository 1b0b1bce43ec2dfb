package bench

import (
	"runtime"
	"time"
)

// cost is what the client process spent: CPU time (user and system, of
// the whole process) and heap allocations, cumulative. Differences of two
// readings taken around an operation are what the operation cost, give
// or take the work of other goroutines (the HTTP transport's, a lease
// session's renewals, the garbage collector's).
type cost struct {
	cpu          time.Duration
	allocBytes   uint64
	allocObjects uint64
}

// readCost reads the process's CPU time (getrusage) and heap allocations
// (runtime.ReadMemStats, which flushes every P's allocation cache, so
// that an allocation counts on the side that made it; runtime/metrics
// counts small allocations only when a span is refilled). ReadMemStats
// stops the world briefly: callers read outside the timed interval.
func readCost() cost {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return cost{cpu: processCPU(), allocBytes: ms.TotalAlloc, allocObjects: ms.Mallocs}
}

// sub returns c - o.
func (c cost) sub(o cost) cost {
	return cost{cpu: c.cpu - o.cpu, allocBytes: c.allocBytes - o.allocBytes, allocObjects: c.allocObjects - o.allocObjects}
}

// add returns c + o.
func (c cost) add(o cost) cost {
	return cost{cpu: c.cpu + o.cpu, allocBytes: c.allocBytes + o.allocBytes, allocObjects: c.allocObjects + o.allocObjects}
}

// perOp sets st's per-operation cost from the total over st.N operations.
func (c cost) perOp(st *Stats) {
	if st.N == 0 {
		return
	}
	n := int64(st.N)
	st.CPU = c.cpu / time.Duration(n)
	st.AllocBytes = int64(c.allocBytes) / n
	st.Allocs = int64(c.allocObjects) / n
}
