package objstore_test

import (
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

func TestStoreConformanceMemory(t *testing.T) {
	objstoretest.RunStore(t, func(t *testing.T) objstore.Backend { return memstore.New() })
}
