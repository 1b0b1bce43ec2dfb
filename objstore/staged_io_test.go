package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
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

// manifestReads counts the reads of manifests through a backend.
type manifestReads struct {
	driver.Backend
	n atomic.Int64
}

func (m *manifestReads) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	if strings.HasSuffix(key, "/_fence/manifest.json") {
		m.n.Add(1)
	}
	return m.Backend.Get(ctx, key, opts)
}

// TestDiscardStagedMany: discarding many staged values reads each
// domain's manifest once, deletes every unpublished one, and refuses the
// published one alone.
func TestDiscardStagedMany(t *testing.T) {
	ctx := context.Background()
	b := &manifestReads{Backend: memstore.New()}
	s := objstore.New(b, &objstore.Options{InlineMax: -1})
	var rs []objstore.Receipt
	for i := range 20 {
		rs = append(rs, stage(t, s, "d", fmt.Sprint("k", i), 3, []byte("x")))
	}
	published := stage(t, s, "d", "kept", 3, []byte("kept"))
	if _, err := s.Commit(ctx, "d", 3, []objstore.Change{objstore.PutReceipt(published)}, nil); err != nil {
		t.Fatal(err)
	}
	before := b.n.Load()
	err := s.DiscardStaged(ctx, append(rs, published)...)
	if !errors.Is(err, objstore.ErrInvalid) {
		t.Fatalf("DiscardStaged with a published value among them: %v, want ErrInvalid", err)
	}
	if n := b.n.Load() - before; n != 1 {
		t.Fatalf("DiscardStaged of 21 values read the manifest %d times, want 1", n)
	}
	for _, r := range rs {
		if _, err := s.OpenStaged(ctx, r, 0, -1); !errors.Is(err, objstore.ErrNotFound) {
			t.Fatalf("%s after DiscardStaged: %v, want ErrNotFound", r.Key, err)
		}
	}
	wantValue(t, s, "d", "kept", []byte("kept"))
}
