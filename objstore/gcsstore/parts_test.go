package gcsstore

import (
	"testing"

	"github.com/fencedstore/fence/objstore/driver/drivertest"
)

// TestPartsConformance runs drivertest.RunParts on GCS, which has no
// uploads in parts: Store.StageParts stages each part as an object of
// its own, and Complete streams them into the value.
func TestPartsConformance(t *testing.T) {
	testEndpoint(t)
	drivertest.RunParts(t, func(t *testing.T) *Backend { return newBucket(t, "", Options{}) }, nil)
}
