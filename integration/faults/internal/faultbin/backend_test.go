package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

// groupRun commits n times at once to one domain through one Store over
// a faultBackend with cfg (manifest writes delayed, so that commits queue
// and the Store merges them), and returns the backend's counters, the
// acknowledged commit ids and the final manifest.
func groupRun(t *testing.T, cfg spec.Writer, n int) (map[string]int64, []string, *format.Manifest) {
	t.Helper()
	ctx := context.Background()
	w, err := hist.Create(filepath.Join(t.TempDir(), "hist.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mem := memstore.New()
	fb := newFaultBackend(mem, cfg, &hist.Client{Name: cfg.Client, W: w})
	store := objstore.New(fb, &objstore.Options{SkipProbe: true, Holder: cfg.Client})
	if _, err := store.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("k0", []byte("first"))}, nil); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := store.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes(fmt.Sprintf("k%d", i%3), fmt.Appendf(nil, "v%d", i))}, nil)
			if err != nil {
				t.Errorf("commit %d: %v", i, err)
				return
			}
			mu.Lock()
			ids = append(ids, res.ID)
			mu.Unlock()
		})
	}
	wg.Wait()
	rc, _, err := mem.Get(ctx, format.ManifestKey("d"), driver.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(rc)
	rc.Close()
	m, err := format.Decode("d", format.ManifestKey("d"), data)
	if err != nil {
		t.Fatal(err)
	}
	return fb.stats(), ids, m
}

// TestMergedWritesCounted: the wrapper knows a manifest write's base from
// its If-Match and counts the writes that carry more than one new commit;
// every acknowledged commit is in the log.
func TestMergedWritesCounted(t *testing.T) {
	st, ids, m := groupRun(t, spec.Writer{Client: "w0", DelayBeforeManifestMillis: 20}, 16)
	if st["merged_writes"] == 0 || st["merged_commits"] <= st["merged_writes"] || st["merge_entries_dropped"] != 0 {
		t.Fatalf("counters %v: want merged writes, none dropped", st)
	}
	for _, id := range ids {
		if _, ok := m.HasCommit(id); !ok {
			t.Errorf("acknowledged commit %s is not in the log", id)
		}
	}
}

// TestMergeDropEntry: BreakMergeDropEntry drops, from a merged write, the
// log entry of the first new commit and nothing else; with the Store's
// group commit it drops entries of acknowledged commits.
func TestMergeDropEntry(t *testing.T) {
	st, ids, _ := groupRun(t, spec.Writer{Client: "w0", DelayBeforeManifestMillis: 20, Break: spec.BreakMergeDropEntry}, 16)
	if st["merge_entries_dropped"] == 0 || len(ids) != 16 {
		t.Fatalf("counters %v, %d commits acknowledged: want dropped entries, 16 acknowledged", st, len(ids))
	}

	m := &format.Manifest{Domain: "d", Keys: map[string]format.Entry{}}
	for i := range 4 {
		m = m.Next("d", 1, format.LogEntry{ID: fmt.Sprintf("c%d", i+1), Holder: "w0"}, nil, nil, 64)
	}
	data, err := dropFirstNew(m, 2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := format.Decode("d", format.ManifestKey("d"), data)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	for _, e := range got.Log {
		seqs = append(seqs, e.Seq)
	}
	if fmt.Sprint(seqs) != "[1 2 4]" || got.Seq != 4 || got.Last.ID != "c4" || newEntries(got, 2) != 1 {
		t.Errorf("after dropping the first entry above seq 2: log seqs %v, seq %d, last %s", seqs, got.Seq, got.Last.ID)
	}
}
