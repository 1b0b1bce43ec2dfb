package azblobstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/fencedstore/fence/transport"
)

// The variables deploy/local/servers.sh sets when it starts Azurite.
const (
	envTestEndpoint = "FENCE_TEST_AZURE_ENDPOINT"
	envTestAccount  = "FENCE_TEST_AZURE_ACCOUNT"
	envTestKey      = "FENCE_TEST_AZURE_KEY"
)

// server is the blob service the tests run against.
type server struct{ endpoint, account, key string }

// testServer returns the blob service of FENCE_TEST_AZURE_ENDPOINT, or
// skips t when it is unset.
func testServer(t testing.TB) server {
	t.Helper()
	s := server{os.Getenv(envTestEndpoint), os.Getenv(envTestAccount), os.Getenv(envTestKey)}
	if s.endpoint == "" {
		t.Skipf("azblobstore: %s is not set; set it to an Azure blob endpoint such as Azurite's http://127.0.0.1:10000/devstoreaccount1, with %s and %s (the account and its shared key), to run the tests against it (bash deploy/local/test.sh starts Azurite)", envTestEndpoint, envTestAccount, envTestKey)
	}
	if s.account == "" || s.key == "" {
		t.Fatalf("azblobstore: %s is set but %s or %s is not", envTestEndpoint, envTestAccount, envTestKey)
	}
	return s
}

// containerName returns "fence-azblob-" and 12 random hex digits.
func containerName() string {
	var r [6]byte
	rand.Read(r[:])
	return "fence-azblob-" + hex.EncodeToString(r[:])
}

// client returns a container client for name on s, with the shared key.
func (s server) client(t testing.TB, name string) *container.Client {
	t.Helper()
	cred, err := container.NewSharedKeyCredential(s.account, s.key)
	if err != nil {
		t.Fatal(err)
	}
	// The transport Open gives its clients.
	opts := &container.ClientOptions{ClientOptions: policy.ClientOptions{Transport: transport.Timeouts{}.Client()}}
	c, err := container.NewClientWithSharedKeyCredential(s.endpoint+"/"+name, cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newContainer creates a fresh container and returns a backend for it
// with prefix and opts. The container is deleted when t ends.
func newContainer(t testing.TB, prefix string, opts *Options) *Backend {
	t.Helper()
	s := testServer(t)
	name := containerName()
	c := s.client(t, name)
	if _, err := c.Create(t.Context(), nil); err != nil {
		t.Fatalf("create container %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := c.Delete(context.WithoutCancel(t.Context()), nil); err != nil {
			t.Errorf("cleanup: delete container %s: %v", name, err)
		}
	})
	b, err := New(c, prefix, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
