package filestore_test

import (
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

func newBackend(t *testing.T) objstore.Backend {
	b, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestConformance(t *testing.T) { objstoretest.RunBackend(t, newBackend) }

func TestStoreConformance(t *testing.T) { objstoretest.RunStore(t, newBackend) }
