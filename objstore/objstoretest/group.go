package objstoretest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// manyWriters is the shape of the concurrent-writer cases: goroutines
// of one Store putting distinct 1 KiB keys to one domain.
const manyWriters = 64

// testManyWriters has 64 goroutines of one Store, at one token, make
// 2,048 commits to one domain (512 under VersionsOnly), with the Store's default commit log (64
// entries): its own concurrent commits are merged into shared manifest
// writes (group commit), never raced against each other, so not one of
// them may fail, end with an unknown outcome, or be lost.
func testManyWriters(t *testing.T, _ *objstore.Store, f *faulty.Backend) {
	runManyWriters(t, f, 32, nil)
}

// scaled returns each, or a quarter of it under VersionsOnly, where every
// put is an upload of its own as well: the merging is the same, and the
// emulators take a minute for 2,048 uploads under the test command's load.
func scaled(each int) int {
	if inlineMax < 0 {
		return max(1, each/4)
	}
	return each
}

// testManyWritersLostReplies is testManyWriters with one manifest write
// in five losing its reply and one in seven answered 503 after it
// landed: each commit of a merged write is resolved by the manifest read
// back, as a commit's own write is, so every commit still succeeds.
func testManyWritersLostReplies(t *testing.T, _ *objstore.Store, f *faulty.Backend) {
	var n atomic.Int64
	f.Add(faulty.Rule{Op: faulty.OpPut, Key: format.ManifestKey("many"), Every: true, Func: func(context.Context, faulty.Call) faulty.Fault {
		switch i := n.Add(1); {
		case i%5 == 0:
			return faulty.Fault{DropReply: true}
		case i%7 == 0:
			return faulty.Fault{ErrAfter: errInjected}
		}
		return faulty.Fault{}
	}})
	runManyWriters(t, f, 8, func() {
		if n.Load() < 5 {
			t.Fatalf("%d manifest writes, so no reply was lost", n.Load())
		}
	})
}

// testManyWritersBesideGC is testManyWriters with the collector running
// beside the writers, with no grace period, the whole time: the packs
// the Store moves inline values into before a fold, and the objects of
// merged writes, are never collected while a manifest names them or a
// write that will name them is in flight, so every put still reads back.
func testManyWritersBesideGC(t *testing.T, _ *objstore.Store, f *faulty.Backend) {
	gc := newStore(f.Unwrap(), &objstore.Options{Holder: "gc"})
	stop := make(chan struct{})
	var collections atomic.Int64
	var done sync.WaitGroup
	done.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := gc.Collect(tctx(t), "many", 0); err != nil && !errors.Is(err, objstore.ErrNotFound) {
				t.Errorf("collect: %v", err)
				return
			}
			collections.Add(1)
		}
	})
	runManyWriters(t, f, 8, func() {
		close(stop)
		done.Wait()
		if collections.Load() < 2 {
			t.Fatalf("%d collections ran beside the writers", collections.Load())
		}
	})
}

func runManyWriters(t *testing.T, f *faulty.Backend, each int, after func()) {
	each = scaled(each)
	s := newStore(f, &objstore.Options{Holder: "many"})
	const domain, token = "many", 7
	if _, err := s.Fence(tctx(t), domain, token); err != nil {
		t.Fatal(err)
	}
	value := func(w, i int) []byte {
		b := bytes.Repeat([]byte{byte('a' + w%26)}, 1024)
		copy(b, fmt.Sprintf("writer %d put %d ", w, i))
		return b
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seqs = map[uint64]string{}
	)
	start := make(chan struct{})
	for w := range manyWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range each {
				key := fmt.Sprintf("w%02d/k%03d", w, i)
				res, err := s.Put(tctx(t), domain, key, token, bytes.NewReader(value(w, i)), 1024)
				if err != nil {
					t.Errorf("put %s: %v", key, err)
					return
				}
				mu.Lock()
				if other, ok := seqs[res.Seq]; ok {
					t.Errorf("put %s and %s both report seq %d", key, other, res.Seq)
				}
				seqs[res.Seq] = key
				mu.Unlock()
				if len(res.Versions) != 1 || res.Versions[0].Key != key || res.Versions[0].Size != 1024 {
					t.Errorf("put %s: result names versions %+v", key, res.Versions)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	if after != nil {
		after()
	}
	if t.Failed() {
		return
	}
	sn, err := s.Snapshot(tctx(t), domain)
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(1 + manyWriters*each); sn.Seq() != want {
		t.Errorf("the manifest is at seq %d after the fence and %d puts, want %d", sn.Seq(), manyWriters*each, want)
	}
	// Read through a Store of its own: no cache of the writer's.
	r := newStore(f.Unwrap(), nil)
	for w := range manyWriters {
		for i := range each {
			key := fmt.Sprintf("w%02d/k%03d", w, i)
			got, _, err := r.ReadAll(tctx(t), domain, key)
			if err != nil {
				t.Fatalf("read %s: %v", key, err)
			}
			if !bytes.Equal(got, value(w, i)) {
				t.Fatalf("read %s: %d bytes, not the ones put", key, len(got))
			}
		}
	}
	if n := len(seqs); n != manyWriters*each {
		t.Fatalf("%d distinct seqs for %d puts", n, manyWriters*each)
	}
	keys := slices.Sorted(maps.Keys(seqs))
	if keys[0] != 2 || keys[len(keys)-1] != uint64(1+manyWriters*each) {
		t.Fatalf("seqs run from %d to %d", keys[0], keys[len(keys)-1])
	}
}
