package main

import (
	"context"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/azuretest"
	"github.com/fencedstore/fence/objstore/azblobstore"
)

// cloudSequence with --store azblob://...?endpoint=... (azblobstore on
// Azurite), with the account's shared key in AZURE_STORAGE_ACCOUNT and
// AZURE_STORAGE_KEY, which every fence process inherits.
func TestServersAzure(t *testing.T) {
	ep := azuretest.Use(t, "the fence CLI")
	container := unique("fence-cli-azure-")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		b, err := azblobstore.Open(ctx, container, "", &azblobstore.Options{Endpoint: ep})
		if err == nil {
			_, err = b.Client().Delete(ctx, nil)
		}
		if err != nil {
			t.Logf("cleanup: delete container %s: %v", container, err)
		}
	})
	cloudSequence(t, "azblob://"+container+"/tenant?endpoint="+ep, "container", container)
}
