package gcsstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"testing"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
)

// endpointEnv holds the endpoint of the fake-gcs-server the tests use;
// deploy/local/servers.sh starts one and sets it.
const endpointEnv = "FENCE_TEST_GCS_ENDPOINT"

// testEndpoint returns the emulator's endpoint, or skips t.
func testEndpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv(endpointEnv)
	if ep == "" {
		t.Skipf("gcsstore: %s is not set; set it to the endpoint of a fake-gcs-server such as http://127.0.0.1:4443 to run the tests against it (bash deploy/local/test.sh starts one)", endpointEnv)
	}
	return ep
}

// bucketName returns "fence-gcsstore-" and 12 random hex digits.
func bucketName() string {
	var r [6]byte
	rand.Read(r[:])
	return "fence-gcsstore-" + hex.EncodeToString(r[:])
}

// newBucket creates a fresh bucket on the emulator and returns a backend
// for it with prefix and opts (Endpoint set by newBucket). The bucket and
// everything in it is removed when t ends.
func newBucket(t testing.TB, prefix string, opts Options) *Backend {
	t.Helper()
	opts.Endpoint = testEndpoint(t)
	b, err := Open(t.Context(), bucketName(), prefix, &opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := b.EnsureBucket(t.Context()); err != nil {
		t.Fatalf("EnsureBucket: %v", err)
	}
	t.Cleanup(func() { removeBucket(t, b.bucket) })
	return b
}

// removeBucket deletes the bucket and everything in it.
func removeBucket(t testing.TB, bk *storage.BucketHandle) {
	ctx := context.WithoutCancel(t.Context())
	it := bk.Objects(ctx, nil)
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			t.Errorf("cleanup: list: %v", err)
			return
		}
		if err := bk.Object(a.Name).Delete(ctx); err != nil && !errors.Is(err, storage.ErrObjectNotExist) {
			t.Errorf("cleanup: delete %s: %v", a.Name, err)
		}
	}
	if err := bk.Delete(ctx); err != nil && !errors.Is(err, storage.ErrBucketNotExist) {
		t.Errorf("cleanup: delete bucket: %v", err)
	}
}
