package objstoretest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// testWriter: a Writer's bytes are visible only after Close returns nil;
// one abandoned by its context, or never closed, publishes nothing.
func testWriter(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	ctx := tctx(t)
	w := s.NewWriter(ctx, "d", "csv", 1)
	for i := range 1000 {
		if _, err := fmt.Fprintf(w, "row %d,%d\n", i, i*i); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.ReadAll(ctx, "d", "csv"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("key visible before Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if c := w.Result(); c.Token != 1 || len(c.Versions) != 1 {
		t.Fatalf("Commit after Close = %+v", c)
	}
	got, v, err := s.ReadAll(ctx, "d", "csv")
	if err != nil || !strings.HasPrefix(string(got), "row 0,0\nrow 1,1\n") || v.Size != int64(len(got)) || strings.Count(string(got), "\n") != 1000 {
		t.Fatalf("read back %d bytes (%+v), %v", len(got), v, err)
	}

	// Abandoned: the context ends before Close.
	actx, cancel := context.WithCancel(ctx)
	w = s.NewWriter(actx, "d", "abandoned", 1)
	if _, err := w.Write([]byte("half a report")); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := w.Close(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close after the context ended: %v, want context.Canceled", err)
	}
	if _, err := w.Write([]byte("more")); err == nil {
		t.Fatal("Write after a failed Close succeeded")
	}
	// Never closed: nothing visible, whatever was written.
	w = s.NewWriter(ctx, "d", "unclosed", 1)
	if _, err := w.Write([]byte("never closed")); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"abandoned", "unclosed"} {
		if _, _, err := s.ReadAll(ctx, "d", k); !errors.Is(err, objstore.ErrNotFound) {
			t.Fatalf("%s: visible: %v", k, err)
		}
	}
	// A fenced writer fails at Close (or at a Write once the commit has
	// failed) and publishes nothing.
	if _, err := s.Fence(ctx, "d", 2); err != nil {
		t.Fatal(err)
	}
	w = s.NewWriter(ctx, "d", "late", 1)
	w.Write([]byte("stale"))
	if err := w.Close(); !errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("Close of a stale writer: %v, want ErrFenced", err)
	}
}

// testRangeReader: ranges give exactly their bytes, cut at the end; an
// offset outside the key is ErrInvalid; a version object whose size is
// not the recorded one is ErrIntegrity.
func testRangeReader(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	ctx := tctx(t)
	data := bytes.Repeat([]byte("0123456789"), 300) // 3000 bytes, past the version cache of none
	if _, err := s.Put(ctx, "d", "k", 1, bytes.NewReader(data), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "d", "empty", 1, bytes.NewReader(nil), 0); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key         string
		off, length int64
		want        []byte
	}{
		{"k", 0, 10, data[:10]},
		{"k", 1234, 100, data[1234:1334]},
		{"k", 2990, -1, data[2990:]},
		{"k", 2990, 1000, data[2990:]},
		{"k", 3000, -1, nil},
		{"k", 0, -1, data},
		{"empty", 0, -1, nil},
	} {
		rc, err := s.NewRangeReader(ctx, "d", tc.key, tc.off, tc.length)
		if err != nil {
			t.Fatalf("NewRangeReader(%s, %d, %d): %v", tc.key, tc.off, tc.length, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Fatalf("range (%s, %d, %d) = %d bytes, %v; want %d bytes", tc.key, tc.off, tc.length, len(got), err, len(tc.want))
		}
	}
	for _, off := range []int64{-1, 3001} {
		if _, err := s.NewRangeReader(ctx, "d", "k", off, 1); !errors.Is(err, objstore.ErrInvalid) {
			t.Fatalf("offset %d: %v, want ErrInvalid", off, err)
		}
	}
	if _, err := s.NewRangeReader(ctx, "d", "missing", 0, 1); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("missing key: %v, want ErrNotFound", err)
	}
	// Corrupt the version object: another size than the manifest's.
	v, err := s.NewRangeReader(ctx, "d", "k", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	vs, err := s.List(ctx, "d", &objstore.ListOptions{Prefix: "k"})
	if err != nil || len(vs) != 1 {
		t.Fatalf("list: %+v, %v", vs, err)
	}
	if vs[0].Inline {
		// An inline value is verified whole before its range is cut.
		tamper(t, f.Unwrap(), "d", vs[0], strings.Repeat("x", int(vs[0].Size)))
	} else if _, err := f.Unwrap().Put(ctx, vs[0].Object, strings.NewReader("short"), 5, driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	fresh := newStore(f.Unwrap(), &objstore.Options{VersionCacheBytes: -1})
	if _, err := fresh.NewRangeReader(ctx, "d", "k", 0, 3); !errors.Is(err, objstore.ErrIntegrity) {
		t.Fatalf("range of a version object of the wrong size: %v, want ErrIntegrity", err)
	}
}

// testListPages: Prefix, After and Limit select pages; paging through one
// Snapshot sees one commit, whatever is committed meanwhile.
func testListPages(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	ctx := tctx(t)
	var changes []objstore.Change
	for i := range 25 {
		changes = append(changes, objstore.PutBytes(fmt.Sprintf("a/%02d", i), []byte("x")))
	}
	changes = append(changes, objstore.PutBytes("b/1", []byte("y")), objstore.PutBytes("a", []byte("z")))
	if _, err := s.Commit(ctx, "d", 1, changes, nil); err != nil {
		t.Fatal(err)
	}
	sn, err := s.Snapshot(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	// Commits after the snapshot do not show in its pages.
	if _, err := s.Put(ctx, "d", "a/99", 1, strings.NewReader("later"), -1); err != nil {
		t.Fatal(err)
	}
	var keys []string
	after := ""
	for pages := 1; ; pages++ {
		if pages > 5 {
			t.Fatalf("still paging after %d pages of 10 for 25 keys: %v", pages, keys)
		}
		page, err := sn.ListPage(ctx, &objstore.ListOptions{Prefix: "a/", After: after, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range page.Versions {
			keys = append(keys, v.Key)
		}
		if page.Next == "" {
			if pages != 3 {
				t.Fatalf("%d pages of 10 for 25 keys", pages)
			}
			break
		}
		after = page.Next
	}
	if len(keys) != 25 || keys[0] != "a/00" || keys[24] != "a/24" {
		t.Fatalf("paged keys: %v", keys)
	}
	all, err := s.List(ctx, "d", nil)
	if err != nil || len(all) != 28 {
		t.Fatalf("List(nil) = %d keys, %v; want 28", len(all), err)
	}
	if _, err := s.List(ctx, "d", &objstore.ListOptions{Limit: -1}); !errors.Is(err, objstore.ErrInvalid) {
		t.Fatalf("negative limit: %v", err)
	}
}
