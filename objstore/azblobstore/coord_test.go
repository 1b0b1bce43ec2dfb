package azblobstore

import (
	"testing"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/coordtest"
	"github.com/fencedstore/fence/rules"
)

// TestBucketLease runs the coordinator suite on the bucket-lease
// coordinator, whose lease records are blobs updated with the same
// conditional writes, over a container of its own per subtest.
func TestBucketLease(t *testing.T) {
	testServer(t)
	coordtest.Run(t, func(t *testing.T, clk coord.Clock) coord.Driver {
		return bucketlease.New(newContainer(t, "", nil), &bucketlease.Options{Clock: clk})
	}, &coordtest.Options{Wipe: func(t *testing.T, d coord.Driver, domain string) {
		b := d.(*bucketlease.Driver).Backend()
		if err := b.Delete(t.Context(), rules.SystemKey(domain, bucketlease.RecordName)); err != nil {
			t.Fatalf("wipe %q: %v", domain, err)
		}
	}})
}
