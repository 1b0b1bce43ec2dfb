package objstoretest

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// plainStore returns a Store with plain copies over b, or skips the test
// when b keeps no object metadata.
func plainStore(t *testing.T, b *faulty.Backend) *objstore.Store {
	t.Helper()
	if !driver.CapabilitiesOf(b).Metadata {
		t.Skip("the backend keeps no object metadata: no plain copies")
	}
	return newStore(b, &objstore.Options{Holder: "suite", PlainCopies: true})
}

// plainSeq returns the plain object's bytes and the commit seq its
// metadata names.
func plainSeq(t *testing.T, b driver.Backend, key string) (string, uint64) {
	t.Helper()
	info, err := b.Head(tctx(t), key)
	if err != nil {
		t.Fatalf("plain copy %q: %v", key, err)
	}
	seq, _ := strconv.ParseUint(info.Metadata["fence-seq"], 10, 64)
	return drivertest.ReadString(t, b, key), seq
}

// A holder paused between its commit and its plain copy, resumed after a
// newer holder's commit and copy, leaves the newer copy in place, and the
// plain object never goes back to an older commit, not even for a moment.
func testPlainCopyStaleHolder(t *testing.T, _ *objstore.Store, b *faulty.Backend) {
	ctx := tctx(t)
	s := plainStore(t, b)
	paused, gate := make(chan struct{}), make(chan struct{})
	var (
		mu      sync.Mutex
		applied []uint64 // the commit seq of every plain write that landed, in order
		first   = true
	)
	b.Add(faulty.Rule{Op: faulty.OpPut, Key: "d/k", Every: true, Func: func(_ context.Context, c faulty.Call) faulty.Fault {
		seq, _ := strconv.ParseUint(c.Opts.Metadata["fence-seq"], 10, 64)
		f := faulty.Fault{Then: func() {
			mu.Lock()
			applied = append(applied, seq)
			mu.Unlock()
		}}
		mu.Lock()
		defer mu.Unlock()
		if first {
			first = false
			close(paused)
			f.Pause = gate
		}
		return f
	}})
	done := make(chan error, 1)
	go func() {
		_, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("k", []byte("old"))}, nil)
		done <- err
	}()
	<-paused
	newer, err := s.Commit(ctx, "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("new"))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatalf("the older commit: %v", err)
	}
	if got, seq := plainSeq(t, b, "d/k"); got != "new" || seq != newer.Seq {
		t.Fatalf("plain d/k = %q at seq %d; want the newer holder's \"new\" at %d", got, seq, newer.Seq)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(applied); i++ {
		if applied[i] < applied[i-1] {
			t.Fatalf("plain writes landed at seqs %v: the plain object went back", applied)
		}
	}
}

// The race If-Match cannot see: a newer copy with the same bytes as the
// object an older copy read. The older copy lands over it, and its
// commit's check puts the newest back before Commit returns.
func testPlainCopySameBytesRace(t *testing.T, _ *objstore.Store, b *faulty.Backend) {
	ctx := tctx(t)
	s := plainStore(t, b)
	if _, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("k", []byte("same"))}, nil); err != nil {
		t.Fatal(err)
	}
	paused, gate := make(chan struct{}), make(chan struct{})
	b.Add(faulty.Rule{Op: faulty.OpPut, Key: "d/k", Func: func(context.Context, faulty.Call) faulty.Fault {
		close(paused)
		return faulty.Fault{Pause: gate}
	}})
	done := make(chan error, 1)
	go func() {
		_, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("k", []byte("older"))}, nil)
		done <- err
	}()
	<-paused
	newer, err := s.Commit(ctx, "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("same"))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatalf("the older commit: %v", err)
	}
	got, seq := plainSeq(t, b, "d/k")
	if got != "same" || seq < newer.Seq {
		t.Fatalf("plain d/k = %q at seq %d; want the newer \"same\" at seq %d or later", got, seq, newer.Seq)
	}
}
