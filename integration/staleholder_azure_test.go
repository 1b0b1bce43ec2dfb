package integration

import (
	"context"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/azuretest"
	"github.com/fencedstore/fence/objstore/azblobstore"
)

// TestStaleHolderAcrossProcessesAzure is TestStaleHolderAcrossProcesses
// on azblob:// (azblobstore against Azurite) with bucket leases: holder
// A is stopped with SIGSTOP between its lease check and its write, B
// takes over, and A's write is fenced naming both tokens. The holders
// inherit the account's shared key in AZURE_STORAGE_ACCOUNT and
// AZURE_STORAGE_KEY.
func TestStaleHolderAcrossProcessesAzure(t *testing.T) {
	ep := azuretest.Use(t, "the stale-holder test")
	s := setup{
		Backend: "azblob", Coord: "bucket", Azure: ep,
		Bucket: uniqueName("stale"), Domain: "reports/monthly", TTLMilli: 1500,
	}
	provision(t, s)
	runStaleHolder(t, s)
}

// provisionAzure creates s's container on Azurite, and deletes it when t
// ends.
func provisionAzure(t *testing.T, s setup) {
	t.Helper()
	b, err := azblobstore.Open(context.Background(), s.Bucket, "", &azblobstore.Options{Endpoint: s.Azure})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.EnsureContainer(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := b.Client().Delete(ctx, nil); err != nil {
			t.Logf("cleanup: delete container %s: %v", s.Bucket, err)
		}
	})
}
