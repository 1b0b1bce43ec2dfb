package cost

import (
	"crypto/sha256"
	"testing"
	"time"
)

var sink []byte

// Measure counts what the call allocates, and not what it does not.
func TestMeasureAllocations(t *testing.T) {
	u, err := Measure(func() error {
		for range 16 {
			sink = make([]byte, 64<<10)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if u.Bytes < 16*64<<10 || u.Allocs < 16 {
		t.Fatalf("16 allocations of 64 KiB measured as %d bytes in %d allocations", u.Bytes, u.Allocs)
	}
	u, _ = Measure(func() error { return nil })
	if u.Bytes != 0 || u.Allocs != 0 {
		t.Fatalf("a call that allocates nothing measured as %d bytes in %d allocations", u.Bytes, u.Allocs)
	}
}

// Measure counts the CPU time the call spends, in proportion to the work
// it does, and not the time it waits.
func TestMeasureCPU(t *testing.T) {
	if !CPUMeasured {
		t.Skip("no getrusage on this system")
	}
	hash := func(n int) func() error {
		return func() error {
			var h [sha256.Size]byte
			for range n {
				h = sha256.Sum256(h[:])
			}
			sink = h[:]
			return nil
		}
	}
	const n = 100_000 // about 30 ms of one core
	one, _ := Measure(hash(n))
	four, _ := Measure(hash(4 * n))
	// CPU time, unlike wall time, does not grow when the machine is busy;
	// the bounds leave room for caches and the scheduler.
	if one.CPU <= 0 || four.CPU < 2*one.CPU || four.CPU > 8*one.CPU {
		t.Fatalf("hashing measured as %v of CPU, and four times as much as %v; want more than 0, and 2x to 8x", one.CPU, four.CPU)
	}
	const nap = 50 * time.Millisecond
	u, _ := Measure(func() error { time.Sleep(nap); return nil })
	if u.CPU > nap/2 {
		t.Fatalf("%v of sleep measured as %v of CPU", nap, u.CPU)
	}
}

// BenchmarkPairEmpty is what the measuring itself costs: two calls that
// do nothing.
func BenchmarkPairEmpty(b *testing.B) {
	nothing := func() error { return nil }
	Pair(b, Side{"a", nothing}, Side{"b", nothing})
}
