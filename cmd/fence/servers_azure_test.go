package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore/azblobstore"
)

// The Azurite that deploy/local/servers.sh starts: its endpoint
// (http://127.0.0.1:PORT/ACCOUNT), account and key.
const (
	azureEndpointEnv = "FENCE_TEST_AZURE_ENDPOINT"
	azureAccountEnv  = "FENCE_TEST_AZURE_ACCOUNT"
	azureKeyEnv      = "FENCE_TEST_AZURE_KEY"
)

// cloudSequence with --store azblob://...?endpoint=... (azblobstore on
// Azurite), with the account's shared key in AZURE_STORAGE_ACCOUNT and
// AZURE_STORAGE_KEY, which every fence process inherits.
func TestServersAzure(t *testing.T) {
	ep := os.Getenv(azureEndpointEnv)
	if ep == "" {
		t.Skipf("fence CLI against Azurite: %s not set; bash deploy/local/test.sh starts it and sets it", azureEndpointEnv)
	}
	t.Setenv(azblobstore.EnvConnectionString, "")
	t.Setenv(azblobstore.EnvAccount, os.Getenv(azureAccountEnv))
	t.Setenv(azblobstore.EnvKey, os.Getenv(azureKeyEnv))
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
