package objstore_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

// sizeLiar is a backend whose reads report a wrong object size.
type sizeLiar struct {
	driver.Backend
	size int64
}

func (b sizeLiar) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	rc, info, err := b.Backend.Get(ctx, key, opts)
	info.Size = b.size
	return rc, info, err
}

// TestManifestReadIgnoresWrongSize: the size a backend reports for the
// manifest only sizes the read's buffer; a manifest is read whole and
// the same whatever size is reported (none, too small, too large).
func TestManifestReadIgnoresWrongSize(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	data := bytes.Repeat([]byte("v"), 3000) // kept in the manifest
	for i := range 5 {
		if _, err := objstore.New(mem, nil).Put(ctx, "d", "k", 1, bytes.NewReader(data[:1000*(i%3+1)]), int64(1000*(i%3+1))); err != nil {
			t.Fatal(err)
		}
	}
	for _, size := range []int64{-1, 0, 1, 100, 1 << 40} {
		got, _, err := objstore.New(sizeLiar{mem, size}, nil).ReadAll(ctx, "d", "k")
		if err != nil || !bytes.Equal(got, data[:2000]) {
			t.Fatalf("size %d: read %d bytes, %v; want 2000", size, len(got), err)
		}
	}
}
