package gcsstore

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
)

// TestProbe checks that the capability probe passes on the emulator, and
// refuses the same bucket behind a wrapper that drops the generation
// preconditions, naming the operation that was not refused.
func TestProbe(t *testing.T) {
	b := newBucket(t, "", Options{})
	if err := driver.ProbeConditions(t.Context(), b); err != nil {
		t.Fatalf("probe of %s: %v", b.Location(), err)
	}
	err := driver.Probe(t.Context(), drivertest.IgnoreConditions(b))
	if !errors.Is(err, driver.ErrUnsafeStore) {
		t.Fatalf("probe of a store that ignores ifGenerationMatch: %v; want ErrUnsafeStore", err)
	}
	if !strings.Contains(err.Error(), "ifGenerationMatch=0") || !strings.Contains(err.Error(), "succeeded") {
		t.Fatalf("probe error does not name the write that was not refused: %v", err)
	}
}

// TestGenerationPinnedRead checks what Get relies on: a read pinned to a
// generation that has been replaced finds nothing, rather than the
// newer content under the older generation's ETag.
func TestGenerationPinnedRead(t *testing.T) {
	b := newBucket(t, "", Options{})
	ctx := t.Context()
	first, err := b.Put(ctx, "k", strings.NewReader("one"), 3, driver.PutOptions{Mode: driver.Create{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, "k", strings.NewReader("two"), 3, driver.PutOptions{Mode: driver.Update{ETag: first.ETag}}); err != nil {
		t.Fatal(err)
	}
	gen, _ := generation(first.ETag)
	r, err := b.object("k").Generation(gen).NewReader(ctx)
	if err == nil {
		got, _ := io.ReadAll(r)
		r.Close()
		t.Fatalf("a read pinned to the replaced generation %d returned %q; want not found", gen, got)
	}
	if !errors.Is(b.fail(ctx, "get", "k", err), driver.ErrNotFound) {
		t.Fatalf("read of a replaced generation: %v; want not found", err)
	}
}
