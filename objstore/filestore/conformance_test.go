package filestore_test

import (
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

func newBackend(t *testing.T) driver.Backend {
	b, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestConformance(t *testing.T) { drivertest.Run(t, newBackend) }

func TestStoreConformance(t *testing.T) { objstoretest.RunStore(t, newBackend) }

func TestPartsConformance(t *testing.T) {
	drivertest.RunParts(t, func(t *testing.T) *filestore.Backend { return newBackend(t).(*filestore.Backend) },
		func(_ *testing.T, b *filestore.Backend) []string { return filestore.Uploads(b) })
}
