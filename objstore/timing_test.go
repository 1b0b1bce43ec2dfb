package objstore_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// TestNoHiddenDeadline: called with a context that has no deadline, no
// Store operation hands its backend one. (Until December 2026 every call
// got 30 s, and a slow producer's upload failed with "context deadline
// exceeded".)
func TestNoHiddenDeadline(t *testing.T) {
	mem := faulty.New(memstore.New())
	var calls, withDeadline atomic.Int64
	mem.Add(faulty.Func(func(ctx context.Context, c faulty.Call) faulty.Fault {
		calls.Add(1)
		if _, ok := ctx.Deadline(); ok {
			withDeadline.Add(1)
			t.Errorf("%s %q was given a deadline the caller did not set", c.Op, c.Key)
		}
		return faulty.Fault{}
	}))
	s := objstore.New(mem, nil)
	ctx := context.Background()
	steps := []struct {
		name string
		fn   func() error
	}{
		{"Fence", func() error { _, err := s.Fence(ctx, "d", 1); return err }},
		{"Put", func() error { _, err := s.Put(ctx, "d", "k", 1, strings.NewReader("v"), 1); return err }},
		{"Commit", func() error {
			_, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("a", []byte("a")), objstore.DeleteKey("k")}, nil)
			return err
		}},
		{"ReadAll", func() error { _, _, err := s.ReadAll(ctx, "d", "a"); return err }},
		{"List", func() error { _, err := s.List(ctx, "d", nil); return err }},
		{"Highest", func() error { _, err := s.Highest(ctx, "d"); return err }},
		{"Snapshot", func() error { _, err := s.Snapshot(ctx, "d"); return err }},
		{"Collect", func() error { _, err := s.Collect(ctx, "d", 0); return err }},
	}
	for _, st := range steps {
		if err := st.fn(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
	if calls.Load() == 0 || withDeadline.Load() != 0 {
		t.Fatalf("%d backend calls, %d with a deadline", calls.Load(), withDeadline.Load())
	}
}

// TestRetriesEndWithoutADeadline: over a backend that fails every call
// with a 503, operations called without a deadline end after a bounded
// number of retries, and a commit whose manifest write may have landed
// reports an unknown outcome.
func TestRetriesEndWithoutADeadline(t *testing.T) {
	mem := faulty.New(memstore.New())
	s := objstore.New(mem, nil)
	ctx := context.Background()
	if _, err := s.Fence(ctx, "d", 1); err != nil {
		t.Fatal(err)
	}
	mem.Add(faulty.Always("", "", faulty.Fault{Err: &faulty.HTTPError{Status: 503, Code: "SlowDown"}}))
	start := time.Now()
	before := mem.Calls(faulty.OpGet)
	_, err := objstore.New(mem, nil).Highest(ctx, "d") // a fresh Store has no cached manifest
	if err == nil || !strings.Contains(err.Error(), "retries exhausted") {
		t.Fatalf("Highest over a store that always answers 503: %v; want it to give up", err)
	}
	if n := mem.Calls(faulty.OpGet) - before; n > 20 {
		t.Fatalf("Highest made %d reads before giving up", n)
	}
	_, err = s.Put(ctx, "d", "k", 1, strings.NewReader("v"), 1)
	if err == nil {
		t.Fatal("Put over a store that always answers 503 succeeded")
	}
	mem.Clear()
	mem.Add(
		faulty.Always(faulty.OpPut, format.ManifestKey("d"), faulty.Fault{ErrAfter: &faulty.HTTPError{Status: 503}}),
		faulty.Always(faulty.OpGet, "", faulty.Fault{Err: &faulty.HTTPError{Status: 503}}),
	)
	_, err = s.Put(ctx, "d", "k2", 1, strings.NewReader("v"), 1)
	if !errors.Is(err, objstore.ErrOutcomeUnknown) {
		t.Fatalf("Put whose manifest write landed and could not be read back: %v; want ErrOutcomeUnknown", err)
	}
	if took := time.Since(start); took > time.Minute {
		t.Fatalf("giving up took %s", took)
	}
}
