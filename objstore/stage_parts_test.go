package objstore_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/observe"
)

// noParts hides every optional interface of the backend it wraps,
// driver.PartUploader among them.
type noParts struct{ driver.Backend }

// TestStagePartsOwnObjects runs the parts suite on a backend without
// uploads in parts: each part is an object of its own, and none is left
// after Complete or Abort.
func TestStagePartsOwnObjects(t *testing.T) {
	drivertest.RunParts(t, func(*testing.T) driver.Backend { return noParts{memstore.New()} }, nil)
}

// TestStagePartsObserved: a Store that reports its backend's calls
// (Options.Observer) still uploads in the backend's own parts.
func TestStagePartsObserved(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	calls := &countCalls{}
	s := objstore.New(mem, &objstore.Options{Observer: calls})
	u, err := s.StageParts(ctx, "d", "k", 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := mem.Uploads(); len(got) != 1 || got[0] != u.Object() {
		t.Fatalf("backend uploads %q, want one of %q", got, u.Object())
	}
	before := calls.n.Load()
	if _, err := u.UploadPart(ctx, 1, strings.NewReader("value"), 5); err != nil {
		t.Fatal(err)
	}
	if calls.n.Load() == before {
		t.Fatal("UploadPart was not reported to the observer")
	}
	r, err := u.Complete(ctx, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutReceipt(r)}, nil); err != nil {
		t.Fatal(err)
	}
	wantValue(t, s, "d", "k", []byte("value"))
}

type countCalls struct {
	observe.Nop
	n atomic.Int64
}

func (c *countCalls) Call(context.Context, observe.Call) { c.n.Add(1) }

// TestCollectKeepsStagedParts: Collect with no grace period, beside a
// value completed in parts and not yet committed, keeps it while its
// token is the domain's highest (a commit may still publish it), and
// deletes it once a takeover fences its token.
func TestCollectKeepsStagedParts(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	worker := objstore.New(mem, &objstore.Options{InlineMax: -1})
	gc := objstore.New(mem, nil)

	u, err := worker.StageParts(ctx, "d", "k", 1)
	if err != nil {
		t.Fatal(err)
	}
	p1 := bytes.Repeat([]byte("a"), objstore.MinPartSize)
	if _, err := u.UploadPart(ctx, 1, bytes.NewReader(p1), int64(len(p1))); err != nil {
		t.Fatal(err)
	}
	if _, err := u.UploadPart(ctx, 2, strings.NewReader("tail"), 4); err != nil {
		t.Fatal(err)
	}
	r, err := u.Complete(ctx, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := gc.Collect(ctx, "d", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 0 || res.Pending != 1 || !slices.Contains(mem.Keys(), r.Object) {
		t.Fatalf("collect between Complete and commit: %+v, want 0 deleted and 1 pending", res)
	}
	if _, err := worker.Commit(ctx, "d", 1, []objstore.Change{objstore.PutReceipt(r)}, nil); err != nil {
		t.Fatalf("commit after collect: %v", err)
	}
	wantValue(t, worker, "d", "k", append(p1, "tail"...))

	// A stale one: completed at 1, then a takeover at 2.
	u, err = worker.StageParts(ctx, "d", "z", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.UploadPart(ctx, 1, strings.NewReader("stale"), 5); err != nil {
		t.Fatal(err)
	}
	stale, err := u.Complete(ctx, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gc.Fence(ctx, "d", 2); err != nil {
		t.Fatal(err)
	}
	if res, err = gc.Collect(ctx, "d", 0); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(mem.Keys(), stale.Object) {
		t.Fatalf("staged value %q of fenced token 1 kept by collect (%+v)", stale.Object, res)
	}
}
