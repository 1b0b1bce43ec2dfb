package gcsstore

import (
	"testing"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/coordtest"
	"github.com/fencedstore/fence/rules"
)

// TestBucketLease runs the coordinator suite on bucket leases whose
// records live in a gs:// bucket.
func TestBucketLease(t *testing.T) {
	testEndpoint(t)
	coordtest.Run(t, func(t *testing.T, clk coord.Clock) coord.Driver {
		return bucketlease.New(newBucket(t, "", Options{}), &bucketlease.Options{Clock: clk})
	}, &coordtest.Options{Wipe: func(t *testing.T, d coord.Driver, domain string) {
		b := d.(*bucketlease.Driver).Backend()
		if err := b.Delete(t.Context(), rules.SystemKey(domain, bucketlease.RecordName)); err != nil {
			t.Fatalf("wipe %q: %v", domain, err)
		}
	}})
}
