package gcsstore

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// TestSmallPutSmallBuffer: the SDK allocates a whole chunk for every
// upload, so a Put of a body known to fit in a chunk must ask for the
// smallest chunk that holds it. With the default 16 MiB chunk, each
// 1 KiB manifest write allocated 16 MiB, and a fenced 256 MiB put peaked
// 1.23x to 1.32x the backend's own (docs/benchmarks.md). Each put here
// must stay one request and allocate at most its body and 1 MiB more.
func TestSmallPutSmallBuffer(t *testing.T) {
	b, n := countingBucket(t)
	ctx := t.Context()
	for _, size := range []int{0, 1 << 10, MinChunkSize - 1, MinChunkSize, MinChunkSize + 1, 1 << 20} {
		body := bytes.Repeat([]byte{'x'}, size)
		key := fmt.Sprint("small-", size)
		before := n.Load()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		alloc := ms.TotalAlloc
		if _, err := b.Put(ctx, key, bytes.NewReader(body), int64(size), driver.PutOptions{Mode: driver.Create{}}); err != nil {
			t.Fatalf("Put of %d bytes: %v", size, err)
		}
		runtime.ReadMemStats(&ms)
		if got, limit := ms.TotalAlloc-alloc, uint64(size)+1<<20; got > limit {
			t.Errorf("Put of %d bytes allocated %d bytes; want at most %d (a chunk of %d is the SDK's default)", size, got, limit, DefaultChunkSize)
		}
		if got := n.Load() - before; got != 1 {
			t.Errorf("Put of %d bytes took %d requests; want 1", size, got)
		}
		if _, err := b.Put(ctx, key, bytes.NewReader(body), int64(size), driver.PutOptions{Mode: driver.Create{}}); !errors.Is(err, driver.ErrPreconditionFailed) {
			t.Errorf("second create of %d bytes: %v; want ErrPreconditionFailed", size, err)
		}
	}
}

// TestChunkFor: a body known to fit in the chunk gets the smallest
// multiple of MinChunkSize that holds it, never 0 (no retries); one of
// unknown size, or of a chunk or more, the Backend's chunk (a resumable
// upload).
func TestChunkFor(t *testing.T) {
	const chunk = 4 * MinChunkSize
	for _, c := range []struct {
		size int64
		want int
	}{
		{-1, chunk}, {0, MinChunkSize}, {1, MinChunkSize}, {MinChunkSize - 1, MinChunkSize},
		{MinChunkSize, MinChunkSize}, {MinChunkSize + 1, 2 * MinChunkSize}, {chunk - 1, chunk}, {chunk, chunk}, {10 * chunk, chunk},
	} {
		if got := chunkFor(c.size, chunk); got != c.want {
			t.Errorf("chunkFor(%d, %d) = %d, want %d", c.size, chunk, got, c.want)
		}
	}
}
