package memstore_test

import (
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

func TestConformance(t *testing.T) {
	objstoretest.RunBackend(t, func(*testing.T) objstore.Backend { return memstore.New() })
}
