package objstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// TestSpillNotRepeated: a commit that moved inline values out into a
// pack and then lost its manifest write (412) decides again and writes
// the manifest, but does not write (or read back) the pack a second
// time.
func TestSpillNotRepeated(t *testing.T) {
	ctx := context.Background()
	mem := faulty.New(memstore.New())
	s := objstore.New(mem, &objstore.Options{InlineBudget: 40})
	for i := range 2 {
		if _, err := s.Put(ctx, "d", fmt.Sprintf("k%d", i), 1, strings.NewReader("twenty bytes of data"), 20); err != nil {
			t.Fatal(err)
		}
	}
	puts, gets := mem.Calls(faulty.OpPut), mem.Calls(faulty.OpGet)
	mem.Add(faulty.FailNext(faulty.OpPut, format.ManifestKey("d"), driver.ErrPreconditionFailed))
	// Passes the budget: spills k0 and k1 (and its own value) first.
	if _, err := s.Put(ctx, "d", "k2", 1, strings.NewReader("more than enough bytes"), 22); err != nil {
		t.Fatal(err)
	}
	m, err := format.ReadManifest(ctx, mem.Unwrap(), "d")
	if err != nil {
		t.Fatal(err)
	}
	spilled, packs := 0, map[string]bool{}
	for _, e := range m.Keys {
		if !e.Inline {
			spilled++
			packs[e.Pack] = true
		}
	}
	if spilled < 2 || len(packs) != 1 || packs[""] {
		t.Fatalf("%d values spilled into packs %v, want at least 2 in one pack", spilled, packs)
	}
	// Two manifest writes (the 412 and the one that landed), one read of
	// the manifest after the 412, and one write of the pack.
	if p, g := mem.Calls(faulty.OpPut)-puts, mem.Calls(faulty.OpGet)-gets; p != 3 || g != 1 {
		t.Fatalf("%d puts and %d gets for a commit that spilled %d values and lost one manifest write; want 3 and 1", p, g, spilled)
	}
	for _, k := range []string{"k0", "k1", "k2"} {
		if _, _, err := objstore.New(mem.Unwrap(), nil).ReadAll(ctx, "d", k); err != nil {
			t.Fatalf("read %s: %v", k, err)
		}
	}
}
