package s3gw_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/s3gw"
)

// minioBackend returns a backend over a fresh bucket of the MinIO server
// of FENCE_TEST_S3_ENDPOINT (deploy/local/test.sh starts one), emptied
// when t ends; it skips without one.
func minioBackend(t *testing.T) driver.Backend {
	t.Helper()
	ep := os.Getenv("FENCE_TEST_S3_ENDPOINT")
	if ep == "" {
		t.Skip("FENCE_TEST_S3_ENDPOINT is not set: set it to a MinIO endpoint, with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, to run the gateway over MinIO (bash deploy/local/test.sh starts one)")
	}
	var r [6]byte
	_, _ = rand.Read(r[:])
	b, err := miniostore.Open(ep, "fence-s3gw-"+hex.EncodeToString(r[:]), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.EnsureBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		var keys []string
		_ = b.List(ctx, "", func(o driver.ObjectInfo) error { keys = append(keys, o.Key); return nil })
		for _, k := range keys {
			_ = b.Delete(ctx, k)
		}
		b.Close()
	})
	return b
}

// TestServersGateway runs the gateway over MinIO, where an upload of a
// known size stops reading at its last byte: a body whose trailing
// checksum is wrong must still stage nothing, and a multipart upload
// goes through the backend's own.
func TestServersGateway(t *testing.T) {
	t.Run("refusals", func(t *testing.T) {
		refusals(t, func(t *testing.T, tls bool) *env { return newEnvOn(t, minioBackend(t), s3gw.CommitAtEnd, tls) })
	})
	t.Run("multipart", func(t *testing.T) { checkMultipart(t, newEnvOn(t, minioBackend(t), s3gw.CommitAtEnd, false)) })
}
