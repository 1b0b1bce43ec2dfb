package bucketlease_test

import (
	"testing"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/coordtest"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/rules"
)

// wipe deletes a domain's lease record, as a destructive reset would.
func wipe(t *testing.T, d coord.Driver, domain string) {
	b := d.(*bucketlease.Driver).Backend()
	if err := b.Delete(t.Context(), rules.SystemKey(domain, bucketlease.RecordName)); err != nil {
		t.Fatalf("wipe %q: %v", domain, err)
	}
}

func TestConformanceMemstore(t *testing.T) {
	coordtest.Run(t, func(t *testing.T, clk coord.Clock) coord.Driver {
		return bucketlease.New(memstore.New(), &bucketlease.Options{Clock: clk})
	}, &coordtest.Options{Wipe: wipe})
}

func TestConformanceFilestore(t *testing.T) {
	coordtest.Run(t, func(t *testing.T, clk coord.Clock) coord.Driver {
		b, err := filestore.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return bucketlease.New(b, &bucketlease.Options{Clock: clk})
	}, &coordtest.Options{Wipe: wipe})
}
