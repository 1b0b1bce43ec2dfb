package memstore_test

import (
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

func newBackend(*testing.T) driver.Backend { return memstore.New() }

func TestConformance(t *testing.T) { drivertest.Run(t, newBackend) }

func TestStoreConformance(t *testing.T) { objstoretest.RunStore(t, newBackend) }

func TestPartsConformance(t *testing.T) {
	drivertest.RunParts(t, func(*testing.T) *memstore.Backend { return memstore.New() },
		func(_ *testing.T, b *memstore.Backend) []string { return b.Uploads() })
}
