package objstore_test

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// headCounter records the most HEAD requests in flight at once.
type headCounter struct {
	driver.Backend
	now, most atomic.Int64
}

func (h *headCounter) Head(ctx context.Context, key string) (driver.ObjectInfo, error) {
	n := h.now.Add(1)
	defer h.now.Add(-1)
	for {
		m := h.most.Load()
		if n <= m || h.most.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(100 * time.Microsecond) // let checks overlap
	return h.Backend.Head(ctx, key)
}

// TestCommitTenThousandReceipts: one commit publishes 10,000 receipts
// staged by 16 workers (past the 256-entry overlay, so the commit folds
// into shards), none visible before it and all after; its checks run
// at most Options.UploadParallelism at once.
func TestCommitTenThousandReceipts(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) driver.Backend{
		"mem": func(*testing.T) driver.Backend { return memstore.New() },
		"file": func(t *testing.T) driver.Backend {
			b, err := filestore.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
	} {
		t.Run(name, func(t *testing.T) {
			const n, workers, parallel = 10000, 16, 6
			ctx := context.Background()
			b := open(t)
			stager := objstore.New(b, nil)
			counted := &headCounter{Backend: b}
			committer := objstore.New(counted, &objstore.Options{UploadParallelism: parallel})
			if _, err := committer.Fence(ctx, "d", 9); err != nil {
				t.Fatal(err)
			}
			value := func(i int) []byte { return fmt.Appendf(nil, "value %d", i) }
			receipts := make([]objstore.Receipt, n)
			var g errgroup.Group
			g.SetLimit(workers)
			for i := range n {
				g.Go(func() error {
					d := value(i)
					r, err := stager.Stage(ctx, "d", fmt.Sprintf("part/%05d", i), 9, bytes.NewReader(d), int64(len(d)))
					receipts[i] = r
					return err
				})
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			if vs, err := committer.List(ctx, "d", nil); err != nil || len(vs) != 0 {
				t.Fatalf("before the commit: %d keys listed, %v", len(vs), err)
			}
			changes := make([]objstore.Change, n)
			for i, r := range receipts {
				changes[i] = objstore.PutReceipt(r)
			}
			start := time.Now()
			res, err := committer.Commit(ctx, "d", 9, changes, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("commit of %d receipts: %v, at most %d checks at once", n, time.Since(start), counted.most.Load())
			if len(res.Versions) != n {
				t.Fatalf("%d versions published, want %d", len(res.Versions), n)
			}
			if m := counted.most.Load(); m > parallel || m < 2 {
				t.Fatalf("at most %d receipt checks ran at once, want 2..%d", m, parallel)
			}
			mi, err := b.Head(ctx, format.ManifestKey("d"))
			if err != nil {
				t.Fatal(err)
			}
			var shards, largest int64
			err = b.List(ctx, format.ShardPrefix("d"), func(o driver.ObjectInfo) error {
				shards, largest = shards+1, max(largest, o.Size)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("manifest %d bytes; %d shards, the largest %d bytes", mi.Size, shards, largest)
			reader := objstore.New(b, nil)
			vs, err := reader.List(ctx, "d", nil)
			if err != nil || len(vs) != n {
				t.Fatalf("after the commit: %d keys listed, %v", len(vs), err)
			}
			var rg errgroup.Group
			rg.SetLimit(workers)
			for i := 0; i < n; i += 97 {
				rg.Go(func() error {
					got, _, err := reader.ReadAll(ctx, "d", fmt.Sprintf("part/%05d", i))
					if err == nil && string(got) != string(value(i)) {
						err = fmt.Errorf("key %d: read %q", i, got)
					}
					return err
				})
			}
			if err := rg.Wait(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
