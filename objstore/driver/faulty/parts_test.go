package faulty_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// TestPartsForwarded: the Backend passes uploads in parts on to a
// backend that has them (the parts suite passes through it), gives
// UploadPart the faults of a Put, and reports driver.ErrUnsupported,
// doing nothing, over a backend that has none.
func TestPartsForwarded(t *testing.T) {
	drivertest.RunParts(t, func(*testing.T) *faulty.Backend { return faulty.New(memstore.New()) },
		func(_ *testing.T, b *faulty.Backend) []string { return b.Unwrap().(*memstore.Backend).Uploads() })

	ctx := context.Background()
	b, mem := newBackend()
	id, err := b.CreateParts(ctx, "k", driver.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	b.Add(faulty.FailNext(faulty.OpPut, "k", boom))
	if _, err := b.UploadPart(ctx, "k", id, 1, strings.NewReader("x"), 1); !errors.Is(err, boom) {
		t.Fatalf("UploadPart with a Put fault: %v, want it", err)
	}
	if err := b.AbortParts(ctx, "k", id); err != nil || len(mem.Uploads()) != 0 {
		t.Fatalf("AbortParts: %v, uploads left %q", err, mem.Uploads())
	}

	plain := faulty.New(struct{ driver.Backend }{memstore.New()})
	if _, err := plain.CreateParts(ctx, "k", driver.PutOptions{}); !errors.Is(err, driver.ErrUnsupported) {
		t.Fatalf("CreateParts over a backend without uploads in parts: %v, want ErrUnsupported", err)
	}
}
