package objstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// TestCollectKeepsStaged: Collect with no grace period, between stage
// and commit, never deletes a staged version of the current token (a
// commit may still publish it); after a takeover it deletes the stale
// token's staged versions, and the stale commit of their receipts is
// fenced.
func TestCollectKeepsStaged(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	worker := objstore.New(mem, &objstore.Options{InlineMax: -1})
	committer := objstore.New(mem, &objstore.Options{InlineMax: -1})
	gc := objstore.New(mem, nil)

	var receipts []objstore.Receipt
	for _, k := range []string{"a", "b", "c"} {
		receipts = append(receipts, stage(t, worker, "d", k, 1, []byte("value of "+k)))
	}
	res, err := gc.Collect(ctx, "d", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 0 || res.Pending != len(receipts) {
		t.Fatalf("collect between stage and commit: %+v, want 0 deleted and %d pending", res, len(receipts))
	}
	var changes []objstore.Change
	for _, r := range receipts {
		changes = append(changes, objstore.PutReceipt(r))
	}
	if _, err := committer.Commit(ctx, "d", 1, changes, nil); err != nil {
		t.Fatalf("commit after collect: %v", err)
	}
	for _, k := range []string{"a", "b", "c"} {
		wantValue(t, committer, "d", k, []byte("value of "+k))
	}

	// A stale job: its worker stages at 1, a new holder takes over at 2.
	stale := []objstore.Receipt{stage(t, worker, "d", "a", 1, []byte("stale a")), stage(t, worker, "d", "z", 1, []byte("stale z"))}
	if _, err := gc.Fence(ctx, "d", 2); err != nil {
		t.Fatal(err)
	}
	if res, err = gc.Collect(ctx, "d", 0); err != nil {
		t.Fatal(err)
	}
	keys := mem.Keys()
	for _, r := range stale {
		if slices.Contains(keys, r.Object) {
			t.Fatalf("staged version %q of fenced token 1 kept by collect (%+v)", r.Object, res)
		}
	}
	// The committer's cached manifest still says token 1: the missing
	// versions make it read the manifest again, and it is fenced.
	_, err = committer.Commit(ctx, "d", 1, []objstore.Change{objstore.PutReceipt(stale[0]), objstore.PutReceipt(stale[1])}, nil)
	var fe *objstore.FencedError
	if !errors.As(err, &fe) || fe.Highest != 2 {
		t.Fatalf("stale commit of collected receipts: %v, want *FencedError at 2", err)
	}
	wantValue(t, committer, "d", "a", []byte("value of a"))
	wantAbsent(t, committer, "d", "z")
}
