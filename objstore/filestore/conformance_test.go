package filestore_test

import (
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

func TestConformance(t *testing.T) {
	objstoretest.RunBackend(t, func(t *testing.T) objstore.Backend {
		b, err := filestore.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
}
