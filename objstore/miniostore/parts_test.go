package miniostore

import (
	"testing"

	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// TestPartsConformance runs drivertest.RunParts: uploads in parts
// (driver.PartUploader) and Store.StageParts over them.
func TestPartsConformance(t *testing.T) {
	s3test.EachServer(t, "miniostore", func(t *testing.T, srv s3test.Server) {
		ep, opts := testEndpoint(srv)
		drivertest.RunParts(t, func(t *testing.T) *Backend {
			return newBucket(t, ep, "", opts)
		}, func(t *testing.T, b *Backend) []string {
			var keys []string
			for _, u := range listUploads(t, b.client, b.bucket) {
				keys = append(keys, u.Key)
			}
			return keys
		})
	})
}
