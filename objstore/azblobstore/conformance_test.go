package azblobstore

import (
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

// TestConformance runs drivertest's backend suite on a plain backend, and
// under a prefix with 5 MiB blocks, so that LargeObject's 9 MiB bodies
// (known and unknown size) are staged and committed with Put Block List;
// then the fencing suite.
func TestConformance(t *testing.T) {
	testServer(t)
	t.Run("Backend", func(t *testing.T) {
		drivertest.Run(t, func(t *testing.T) driver.Backend { return newContainer(t, "", nil) })
	})
	t.Run("PrefixedStaged", func(t *testing.T) {
		drivertest.Run(t, func(t *testing.T) driver.Backend {
			return newContainer(t, "tenant/a", &Options{PartSize: 5 << 20})
		})
	})
	t.Run("Store", func(t *testing.T) {
		objstoretest.RunStore(t, func(t *testing.T) driver.Backend { return newContainer(t, "", nil) })
	})
}

// TestStaged runs the multipart suite on the staged path (Put Block, Put
// Block List): streaming with two blocks in memory, the precondition
// checked by Put Block List (also when it changes while the blocks
// upload), failed uploads that store nothing, and a Store that refuses a
// backend ignoring the condition on Put Block List, naming it.
func TestStaged(t *testing.T) {
	testServer(t)
	drivertest.RunStaged(t, func(t *testing.T, partSize int64) *Backend {
		return newContainer(t, "", &Options{PartSize: partSize})
	})
}
