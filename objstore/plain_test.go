package objstore_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
)

func plainStore(t *testing.T) (*objstore.Store, *faulty.Backend) {
	t.Helper()
	b := faulty.New(memstore.New())
	return objstore.New(b, &objstore.Options{PlainCopies: true}), b
}

// plainSeq returns the plain object's bytes and the commit seq its
// metadata names.
func plainSeq(t *testing.T, b driver.Backend, key string) (string, uint64) {
	t.Helper()
	info, err := b.Head(t.Context(), key)
	if err != nil {
		t.Fatalf("plain copy %q: %v", key, err)
	}
	seq, _ := strconv.ParseUint(info.Metadata["fence-seq"], 10, 64)
	return drivertest.ReadString(t, b, key), seq
}

// Each committed key is also at <domain>/<key>, whole, tagged with its
// commit; a delete removes it.
func TestPlainCopies(t *testing.T) {
	ctx := t.Context()
	s, b := plainStore(t)
	res, err := s.Commit(ctx, "reports", 1, []objstore.Change{objstore.PutBytes("a.csv", []byte("a")), objstore.PutBytes("sub/b.csv", []byte("b"))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, seq := plainSeq(t, b, "reports/a.csv"); got != "a" || seq != res.Seq {
		t.Fatalf("plain a.csv = %q at seq %d; want \"a\" at %d", got, seq, res.Seq)
	}
	if got, _ := plainSeq(t, b, "reports/sub/b.csv"); got != "b" {
		t.Fatalf("plain sub/b.csv = %q", got)
	}
	if _, err := s.Delete(ctx, "reports", "a.csv", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Head(ctx, "reports/a.csv"); !errors.Is(err, driver.ErrNotFound) {
		t.Fatalf("plain copy of a deleted key: %v; want it gone", err)
	}
}

// A backend that keeps no metadata cannot fence plain copies: the commit
// lands, and the error says the copies were not made and why.
func TestPlainCopiesNeedMetadata(t *testing.T) {
	fb, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := objstore.New(fb, &objstore.Options{PlainCopies: true})
	res, err := s.Commit(t.Context(), "d", 1, []objstore.Change{objstore.PutBytes("k", []byte("x"))}, nil)
	var pe *objstore.PlainCopyError
	if !errors.As(err, &pe) || !errors.Is(err, driver.ErrUnsupported) || res.Seq == 0 {
		t.Fatalf("Commit = %+v, %v; want the commit landed and a *PlainCopyError for ErrUnsupported", res, err)
	}
	if got, _, err := s.ReadAll(t.Context(), "d", "k"); err != nil || string(got) != "x" {
		t.Fatalf("the commit: %q, %v", got, err)
	}
}

// SyncPlain writes the copies a store without PlainCopies did not, and
// removes those of keys deleted since, leaving other objects alone.
func TestSyncPlain(t *testing.T) {
	ctx := t.Context()
	mem := memstore.New()
	plain := objstore.New(mem, &objstore.Options{PlainCopies: true})
	if _, err := plain.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("gone", []byte("g"))}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Put(ctx, "d/foreign.txt", strings.NewReader("not fence's"), -1, driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	off := objstore.New(mem, nil)
	if _, err := off.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("k", []byte("v")), objstore.DeleteKey("gone")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := plain.SyncPlain(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	if got, _ := plainSeq(t, mem, "d/k"); got != "v" {
		t.Fatalf("plain d/k = %q after SyncPlain", got)
	}
	if _, err := mem.Head(ctx, "d/gone"); !errors.Is(err, driver.ErrNotFound) {
		t.Fatalf("plain copy of a deleted key after SyncPlain: %v", err)
	}
	if got := drivertest.ReadString(t, mem, "d/foreign.txt"); got != "not fence's" {
		t.Fatalf("an object fence did not write was changed: %q", got)
	}
}
