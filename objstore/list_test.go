package objstore_test

import (
	"fmt"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// requests returns how many calls fb has seen, of every operation.
func requests(fb *faulty.Backend) int64 {
	var n int64
	for _, op := range []faulty.Op{faulty.OpGet, faulty.OpHead, faulty.OpPut, faulty.OpDelete, faulty.OpList} {
		n += fb.Calls(op)
	}
	return n
}

// Paging with ListPage stops on the page whose Next is "": when the
// number of keys is a multiple of the limit, no extra request (and no
// empty page) is needed to learn that the listing is done. Store.ListPage
// costs one manifest read a page; a Snapshot's pages cost none.
func TestListPageNoExtraRequest(t *testing.T) {
	for _, keys := range []int{6, 7} {
		t.Run(fmt.Sprint(keys, "keys"), func(t *testing.T) {
			ctx := t.Context()
			fb := faulty.New(memstore.New())
			s := objstore.New(fb, &objstore.Options{SkipProbe: true})
			var changes []objstore.Change
			for i := range keys {
				changes = append(changes, objstore.PutBytes(fmt.Sprintf("k%02d", i), []byte("v")))
			}
			if _, err := s.Commit(ctx, "d", 1, changes, nil); err != nil {
				t.Fatal(err)
			}
			const limit = 3
			wantPages := (keys + limit - 1) / limit

			// One manifest read: what a page of Store.ListPage costs.
			before := requests(fb)
			if _, err := s.Snapshot(ctx, "d"); err != nil {
				t.Fatal(err)
			}
			perPage := requests(fb) - before

			page := func(opts *objstore.ListOptions) (objstore.Page, error) { return s.ListPage(ctx, "d", opts) }
			pages, got, sent := pageAll(t, fb, page, limit)
			if pages != wantPages || len(got) != keys || sent != int64(pages)*perPage {
				t.Fatalf("Store.ListPage: %d pages, %d keys, %d requests; want %d pages, %d keys, %d requests", pages, len(got), sent, wantPages, keys, int64(wantPages)*perPage)
			}

			sn, err := s.Snapshot(ctx, "d")
			if err != nil {
				t.Fatal(err)
			}
			page = func(opts *objstore.ListOptions) (objstore.Page, error) { return sn.ListPage(ctx, opts) }
			pages, got, sent = pageAll(t, fb, page, limit)
			if pages != wantPages || len(got) != keys || sent != 0 {
				t.Fatalf("Snapshot.ListPage: %d pages, %d keys, %d requests; want %d pages, %d keys, 0 requests", pages, len(got), sent, wantPages, keys)
			}
			for i, k := range got {
				if want := fmt.Sprintf("k%02d", i); k != want {
					t.Fatalf("key %d is %q, want %q (all: %v)", i, k, want, got)
				}
			}
		})
	}
}

// pageAll pages through a listing as the documentation says, and returns
// the number of pages, the keys and the backend requests sent.
func pageAll(t *testing.T, fb *faulty.Backend, page func(*objstore.ListOptions) (objstore.Page, error), limit int) (int, []string, int64) {
	t.Helper()
	before := requests(fb)
	opts := &objstore.ListOptions{Limit: limit}
	var keys []string
	for pages := 1; ; pages++ {
		if pages > 10 {
			t.Fatalf("still paging after %d pages: %v", pages, keys)
		}
		p, err := page(opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Versions) == 0 {
			t.Fatalf("page %d is empty", pages)
		}
		for _, v := range p.Versions {
			keys = append(keys, v.Key)
		}
		if p.Next == "" {
			return pages, keys, requests(fb) - before
		}
		opts.After = p.Next
	}
}
