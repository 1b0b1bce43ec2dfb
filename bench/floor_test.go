package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

// TestInlineRule: the rule the floors follow (runner.inlined) is what a
// Store does, with objstore's defaults and with options of its own. It
// fails when objstore's defaults move away from the floors'.
func TestInlineRule(t *testing.T) {
	ctx := t.Context()
	for _, so := range []objstore.Options{{}, {InlineMax: 1024, InlineBudget: 8 * KiB}, {InlineMax: -1}} {
		r := &runner{so: so}
		s := objstore.New(memstore.New(), &so)
		for _, tc := range []struct {
			n    int
			size int64
		}{{1, 1024}, {1, 1025}, {1, 4096}, {1, 4097}, {3, 100}, {100, KiB}, {300, KiB}, {10, 1024}} {
			changes := make([]objstore.Change, tc.n)
			for i := range changes {
				changes[i] = objstore.PutBytes(fmt.Sprintf("k%d", i), bytes.Repeat([]byte{'x'}, int(tc.size)))
			}
			domain := fmt.Sprintf("d%d-%d", tc.n, tc.size)
			res, err := s.Commit(ctx, domain, 1, changes, nil)
			if err != nil {
				t.Fatal(err)
			}
			all := true
			for _, v := range res.Versions {
				all = all && v.Inline
			}
			// A commit that passes the budget keeps the newest values
			// inline: only a commit kept whole in the manifest is one
			// manifest write.
			sn, err := s.Snapshot(ctx, domain)
			if err != nil {
				t.Fatal(err)
			}
			for i := range changes {
				v, err := sn.Version(ctx, fmt.Sprintf("k%d", i))
				if err != nil {
					t.Fatal(err)
				}
				all = all && v.Inline
			}
			if got := r.inlined(tc.n, tc.size); got != all {
				t.Errorf("options %+v, %d x %d bytes: inlined says %v, the Store kept all inline: %v", so, tc.n, tc.size, got, all)
			}
		}
	}
}

// call is one backend call a countingBackend saw.
type call struct {
	op, key, mode string
	size          int64
}

// countingBackend records every Put and Get.
type countingBackend struct {
	driver.Backend
	mu    sync.Mutex
	calls []call
}

func (b *countingBackend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return driver.ObjectInfo{}, err
	}
	mode := "overwrite"
	switch opts.Mode.(type) {
	case driver.Create:
		mode = "create"
	case driver.Update:
		mode = "update"
	}
	b.mu.Lock()
	b.calls = append(b.calls, call{"put", key, mode, int64(len(data))})
	b.mu.Unlock()
	return b.Backend.Put(ctx, key, bytes.NewReader(data), size, opts)
}

func (b *countingBackend) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	b.mu.Lock()
	b.calls = append(b.calls, call{op: "get", key: key})
	b.mu.Unlock()
	return b.Backend.Get(ctx, key, opts)
}

// TestPutFloorCalls: the put rows' floors make the calls their
// descriptions name, one set per iteration and warm-up: a value kept in
// the manifest is one conditional write of the manifest's bytes, the
// same length as the manifest the fenced side last wrote; a larger one
// adds a create of the value's bytes before it.
func TestPutFloorCalls(t *testing.T) {
	b := &countingBackend{Backend: memstore.New()}
	cfg := tiny(b)
	cfg.Cases = []Case{CasePut}
	cfg.StoreOptions = &objstore.Options{InlineMax: 1024}
	rep, err := Run(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rep.Rows[0].FloorBaseline, "new key") || !strings.Contains(rep.Rows[1].FloorBaseline, "3 KiB to a new key") {
		t.Errorf("floors: %q, %q", rep.Rows[0].FloorBaseline, rep.Rows[1].FloorBaseline)
	}
	n := cfg.Iterations + 1 // and the warm-up
	for _, tc := range []struct {
		size    string
		creates int
	}{{"1KiB", 0}, {"3KiB", n}} {
		var manifest []int64 // the sizes of the fenced side's manifest writes, in order
		var floorWrites, creates int
		for _, c := range b.calls {
			switch {
			case c.op != "put":
			case strings.HasSuffix(c.key, "/put/"+tc.size+"/_fence/manifest.json"):
				manifest = append(manifest, c.size)
			case strings.Contains(c.key, "/plain/floor/put/"+tc.size+"/manifest"):
				floorWrites++
				if wantMode := map[bool]string{true: "create", false: "update"}[floorWrites == 1]; c.mode != wantMode {
					t.Errorf("%s: floor manifest write %d is a %s, want a %s", tc.size, floorWrites, c.mode, wantMode)
				}
				if len(manifest) == 0 || c.size != manifest[len(manifest)-1] {
					t.Errorf("%s: floor manifest write of %d bytes, the manifest's last write %v", tc.size, c.size, manifest)
				}
			case strings.Contains(c.key, "/plain/floor/put/"+tc.size+"/v"):
				creates++
				if c.mode != "create" || c.size != int64(map[string]int{"1KiB": 1024, "3KiB": 3072}[tc.size]) {
					t.Errorf("%s: floor version upload %+v, want a create of the value's size", tc.size, c)
				}
			}
		}
		if floorWrites != n || creates != tc.creates {
			t.Errorf("%s: %d floor manifest writes and %d version creates, want %d and %d", tc.size, floorWrites, creates, n, tc.creates)
		}
	}
}

// costSink keeps TestCostAttribution's allocations on the heap.
var costSink [][]byte

// TestCostAttribution: the client's allocations are counted on the side
// that made them, however the two sides interleave, even when both
// allocate objects of one size class (runtime/metrics would count some
// of one side's on the other: it counts small objects when their span
// is swapped out of the allocation cache).
func TestCostAttribution(t *testing.T) {
	r := &runner{now: time.Now, costs: true}
	alloc := func(n int) func(context.Context, int) error {
		return func(context.Context, int) error {
			costSink = costSink[:0]
			for range n {
				costSink = append(costSink, make([]byte, 48))
			}
			return nil
		}
	}
	costSink = make([][]byte, 0, 4096)
	res, err := r.interleaveSides(t.Context(), 50, side{op: alloc(2000)}, side{op: alloc(100)})
	if err != nil {
		t.Fatal(err)
	}
	big, small := res[0].stats(), res[1].stats()
	if big.Allocs < 2000 || big.Allocs > 2010 || big.AllocBytes < 2000*48 || big.AllocBytes > 2010*48 {
		t.Errorf("the side making 2,000 allocations of 48 bytes: %d objects, %d bytes per call", big.Allocs, big.AllocBytes)
	}
	if small.Allocs < 100 || small.Allocs > 110 || small.AllocBytes < 100*48 || small.AllocBytes > 110*48 {
		t.Errorf("the side making 100 allocations of 48 bytes: %d objects, %d bytes per call", small.Allocs, small.AllocBytes)
	}
}

// TestFloorRatio: a row's floor ratio is its fenced p50 over its floor's,
// judged against the 1.2x.
func TestFloorRatio(t *testing.T) {
	ms := func(n int) Stats { return Stats{N: 1, P50: time.Duration(n) * time.Millisecond} }
	for _, tc := range []struct {
		fenced, floor int
		ratio         float64
		met           bool
	}{{12, 10, 1.2, true}, {13, 10, 1.3, false}, {9, 10, 0.9, true}} {
		row := latencyStatsRow("put/1MiB", "put 1 MiB", "plain", ms(tc.fenced), ms(5)).withFloor("floor", ms(tc.floor))
		judge(&row)
		if !near(row.FloorRatio, tc.ratio) || row.FloorTarget == nil || row.FloorTarget.Met != tc.met {
			t.Errorf("fenced %d ms, floor %d ms: ratio %v, target %+v; want %v, met %v", tc.fenced, tc.floor, row.FloorRatio, row.FloorTarget, tc.ratio, tc.met)
		}
	}
	row := latencyStatsRow("domains/8", "8 domains", "plain", ms(1), ms(1))
	judge(&row)
	if row.FloorTarget != nil || row.FloorRatio != 0 {
		t.Errorf("a row without a floor was judged: %+v", row)
	}
}
