package azblobstore

import (
	"errors"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
)

// TestPartsConformance runs drivertest.RunParts: uploads in parts
// (driver.PartUploader, staged blocks) and Store.StageParts over them,
// with 1 MiB blocks so that a part is staged in several.
func TestPartsConformance(t *testing.T) {
	testServer(t)
	drivertest.RunParts(t, func(t *testing.T) *Backend {
		return newContainer(t, "", &Options{PartSize: 1 << 20})
	}, uncommitted)
}

// uncommitted returns the names of the blobs that have uncommitted
// blocks and no committed content: the uploads in parts left open.
func uncommitted(t *testing.T, b *Backend) []string {
	t.Helper()
	var names []string
	p := b.client.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{UncommittedBlobs: true}})
	for p.More() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatalf("list uncommitted blobs: %v", err)
		}
		for _, it := range page.Segment.BlobItems {
			if _, err := b.Head(t.Context(), *it.Name); errors.Is(err, driver.ErrNotFound) {
				names = append(names, *it.Name)
			}
		}
	}
	return names
}
