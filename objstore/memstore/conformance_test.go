package memstore_test

import (
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

func newBackend(*testing.T) objstore.Backend { return memstore.New() }

func TestConformance(t *testing.T) { objstoretest.RunBackend(t, newBackend) }

func TestStoreConformance(t *testing.T) { objstoretest.RunStore(t, newBackend) }
