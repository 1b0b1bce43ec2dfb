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
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/observe"
)

// TestObserverCommits: every way a commit ends reaches the observer once,
// with what an operator needs to tell them apart.
func TestObserverCommits(t *testing.T) {
	ctx := context.Background()
	fb := faulty.New(memstore.New())
	rec := &observe.Recorder{}
	s := objstore.New(fb, &objstore.Options{Observer: rec, Holder: "h1", SkipProbe: true})
	big := strings.Repeat("x", 5000) // a version object of its own

	if _, err := s.Put(ctx, "d", "a", 2, strings.NewReader(big), int64(len(big))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fence(ctx, "d", 3); err != nil {
		t.Fatal(err)
	}
	_, fenced := s.Delete(ctx, "d", "a", 2)
	if !errors.Is(fenced, objstore.ErrFenced) {
		t.Fatalf("stale delete = %v", fenced)
	}
	// A manifest write whose reply is lost, settled by reading it back.
	fb.Add(faulty.Once(faulty.OpPut, format.ManifestKey("d"), faulty.Fault{DropReply: true}))
	if _, err := s.Put(ctx, "d", "b", 3, strings.NewReader("small"), 5); err != nil {
		t.Fatal(err)
	}
	// An outcome that cannot be settled: every read-back fails until ctx ends.
	fb.Add(faulty.Once(faulty.OpPut, format.ManifestKey("d"), faulty.Fault{DropReply: true}))
	fb.Add(faulty.Always(faulty.OpGet, format.ManifestKey("d"), faulty.Fault{Err: errors.New("unreachable")}))
	uctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, uerr := s.Put(uctx, "d", "c", 3, strings.NewReader("small"), 5)
	cancel()
	var unknown *objstore.UnknownOutcomeError
	if !errors.As(uerr, &unknown) {
		t.Fatalf("put with every read-back failing = %v; want an unknown outcome", uerr)
	}
	fb.Clear()
	// Its retry, with the commit id, settles it.
	if _, err := s.Commit(ctx, "d", 3, []objstore.Change{objstore.PutBytes("c", []byte("small"))}, unknown.Retry()); err != nil {
		t.Fatal(err)
	}

	got := rec.Commits()
	want := []observe.Commit{
		{Domain: "d", Token: 2, Holder: "h1", Outcome: observe.Accepted, Puts: 1},
		{Domain: "d", Token: 3, Holder: "h1", Outcome: observe.Accepted, Fence: true},
		{Domain: "d", Token: 2, Holder: "h1", Outcome: observe.Fenced, Highest: 3, Deletes: 1},
		{Domain: "d", Token: 3, Holder: "h1", Outcome: observe.Accepted, Puts: 1, Settled: true},
		{Domain: "d", Token: 3, Holder: "h1", Outcome: observe.Unknown, Puts: 1, ID: unknown.CommitID},
		{Domain: "d", Token: 3, Holder: "h1", Outcome: observe.Accepted, Puts: 1, ID: unknown.CommitID, Retry: true, Settled: true},
	}
	if len(got) != len(want) {
		t.Fatalf("%d commit events, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Domain != w.Domain || g.Token != w.Token || g.Holder != w.Holder || g.Outcome != w.Outcome || g.Puts != w.Puts || g.Deletes != w.Deletes ||
			g.Fence != w.Fence || g.Retry != w.Retry || g.Settled != w.Settled || (w.Highest != 0 && g.Highest != w.Highest) || (w.ID != "" && g.ID != w.ID) {
			t.Errorf("event %d = %+v\nwant %+v", i, g, w)
		}
		if g.ID == "" && g.Outcome != observe.Failed {
			t.Errorf("event %d has no commit id", i)
		}
		if (g.Outcome == observe.Accepted) != (g.Err == nil) {
			t.Errorf("event %d: outcome %s with err %v", i, g.Outcome, g.Err)
		}
		if g.Outcome == observe.Accepted && g.Seq == 0 {
			t.Errorf("event %d: accepted without a seq", i)
		}
	}
	var puts int
	for _, c := range rec.Calls() {
		if c.System != observe.Store || c.Op == "" {
			t.Fatalf("call %+v", c)
		}
		if c.Op == "put" {
			puts++
		}
	}
	if puts < 5 {
		t.Errorf("%d put calls observed", puts)
	}
}

// TestObserverCollect: a collection reports what it deleted, in objects
// and bytes.
func TestObserverCollect(t *testing.T) {
	ctx := context.Background()
	rec := &observe.Recorder{}
	s := objstore.New(memstore.New(), &objstore.Options{Observer: rec, SkipProbe: true})
	big := strings.Repeat("x", 5000)
	for range 3 {
		if _, err := s.Put(ctx, "d", "a", 1, strings.NewReader(big), int64(len(big))); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Collect(ctx, "d", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Collects()
	if len(c) != 1 || c[0].Deleted != 2 || c[0].DeletedBytes != 10000 || res.DeletedBytes != 10000 || c[0].Err != nil {
		t.Fatalf("collect events %+v, result %+v; want 2 objects, 10000 bytes deleted", c, res)
	}
}

// TestObservedBackendKeepsInterfaces: the store's observed backend keeps
// the optional interfaces its backend has, and Backend returns the
// backend itself.
func TestObservedBackendKeepsInterfaces(t *testing.T) {
	b := hashing{Backend: faulty.New(memstore.New()), calls: new(atomic.Int64)}
	s := objstore.New(b, &objstore.Options{Observer: observe.Nop{}, SkipProbe: true})
	if s.Backend() != driver.Backend(b) {
		t.Fatal("Backend() is not the backend the store was given")
	}
	value := strings.Repeat("v", 5000)
	if _, err := s.Put(context.Background(), "d", "k", 1, strings.NewReader(value), int64(len(value))); err != nil {
		t.Fatal(err)
	}
	if b.calls.Load() != 1 {
		t.Fatalf("PutHashed called %d times through the observed backend; want 1", b.calls.Load())
	}
}
