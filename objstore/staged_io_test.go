package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// TestOpenStaged: a worker reads back what it staged, whole (checked by
// its checksums) and by range, before any commit; a staged object that
// is gone is ErrNotFound.
func TestOpenStaged(t *testing.T) {
	ctx := context.Background()
	s := objstore.New(memstore.New(), nil)
	data := bytes.Repeat([]byte("0123456789"), 1000)
	r := stage(t, s, "d", "k", 3, data)
	read := func(off, n int64) ([]byte, error) {
		rc, err := s.OpenStaged(ctx, r, off, n)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
	if got, err := read(0, -1); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("whole: %d bytes, %v", len(got), err)
	}
	if got, err := read(5, 10); err != nil || !bytes.Equal(got, data[5:15]) {
		t.Fatalf("range: %q, %v", got, err)
	}
	if _, err := read(int64(len(data))+1, 1); !errors.Is(err, objstore.ErrInvalid) {
		t.Fatalf("offset past the end: %v, want ErrInvalid", err)
	}
	bad := r
	bad.SHA256 = "00" + r.SHA256[2:]
	bad.CRC32C, bad.CRC32 = "", ""
	if _, err := func() ([]byte, error) {
		rc, err := s.OpenStaged(ctx, bad, 0, -1)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}(); !errors.Is(err, objstore.ErrIntegrity) {
		t.Fatalf("a receipt whose SHA-256 differs: %v, want ErrIntegrity", err)
	}
	if err := s.DiscardStaged(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := read(0, -1); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("after DiscardStaged: %v, want ErrNotFound", err)
	}
	if err := s.DiscardStaged(ctx, r); err != nil {
		t.Fatalf("discarding again: %v", err)
	}
}

// TestDiscardStagedKeepsPublished: a staged value that a commit published
// is never discarded.
func TestDiscardStagedKeepsPublished(t *testing.T) {
	ctx := context.Background()
	s := objstore.New(memstore.New(), &objstore.Options{InlineMax: -1})
	r := stage(t, s, "d", "k", 3, []byte("published"))
	if _, err := s.Commit(ctx, "d", 3, []objstore.Change{objstore.PutReceipt(r)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.DiscardStaged(ctx, r); !errors.Is(err, objstore.ErrInvalid) {
		t.Fatalf("DiscardStaged of a published value: %v, want ErrInvalid", err)
	}
	wantValue(t, s, "d", "k", []byte("published"))
}
