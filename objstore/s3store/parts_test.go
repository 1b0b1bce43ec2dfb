package s3store

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/internal/s3test"
)

// TestPartsConformance runs drivertest.RunParts: uploads in parts
// (driver.PartUploader) and Store.StageParts over them.
func TestPartsConformance(t *testing.T) {
	s3test.EachServer(t, "s3store", func(t *testing.T, srv s3test.Server) {
		opts := testOptions(srv)
		drivertest.RunParts(t, func(t *testing.T) *Backend {
			return newBucket(t, "", opts)
		}, func(t *testing.T, b *Backend) []string {
			var keys []string
			for _, u := range listUploads(t, b.client, b.bucket) {
				keys = append(keys, aws.ToString(u.Key))
			}
			return keys
		})
	})
}
