package gcsstore

import (
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

// TestConformance runs drivertest's backend suite on a plain backend, and
// under a prefix with the smallest chunks, so that LargeObject's 9 MiB
// bodies (known and unknown size) take the resumable path; then the
// fencing suite.
func TestConformance(t *testing.T) {
	testEndpoint(t)
	t.Run("Backend", func(t *testing.T) {
		drivertest.Run(t, func(t *testing.T) driver.Backend { return newBucket(t, "", Options{}) })
	})
	t.Run("PrefixedResumable", func(t *testing.T) {
		drivertest.Run(t, func(t *testing.T) driver.Backend {
			return newBucket(t, "tenant/a", Options{ChunkSize: MinChunkSize})
		})
	})
	t.Run("Store", func(t *testing.T) {
		objstoretest.RunStore(t, func(t *testing.T) driver.Backend { return newBucket(t, "", Options{}) })
	})
}
