package objstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// Commits racing on one domain through one Store build on the same cached
// manifest; only one of each race lands, and every commit that was
// acknowledged is in the log the store keeps, once, at the seq it was
// acknowledged with. (Successive manifests share their log's array in
// memory, format's logSlab: a commit that lost the race must not write
// its entry into the winner's log.) A retry's outcome is judged from that
// log.
func TestRacingCommitsKeepEveryLogEntry(t *testing.T) {
	ctx := context.Background()
	b := memstore.New()
	s := objstore.New(b, &objstore.Options{LogLimit: 1000})
	const workers, each = 8, 15
	var (
		mu    sync.Mutex
		acked = map[string]uint64{}
		wg    sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				res, err := s.Put(ctx, "d", fmt.Sprintf("k%d", w), 1, strings.NewReader(fmt.Sprint(i)), int64(len(fmt.Sprint(i))))
				if err != nil {
					t.Errorf("worker %d, put %d: %v", w, i, err)
					return
				}
				mu.Lock()
				acked[res.ID] = res.Seq
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// A Store of its own reads the log from the store.
	log, err := objstore.New(b, nil).History(ctx, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string]uint64{}
	for _, r := range log {
		if _, dup := logged[r.ID]; dup {
			t.Fatalf("commit %s is in the log twice", r.ID)
		}
		logged[r.ID] = r.Seq
	}
	for id, seq := range acked {
		if got, ok := logged[id]; !ok || got != seq {
			t.Errorf("acknowledged commit %s at seq %d: in the log at seq %d (present: %v)", id, seq, got, ok)
		}
	}
}
