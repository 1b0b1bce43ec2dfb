package azblobstore_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/azblobstore"
)

// A fenced store on an Azure Blob Storage container. Credentials come
// from the environment: AZURE_STORAGE_CONNECTION_STRING, or
// AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, or an Azure identity.
func Example() {
	ctx := context.Background()
	b, err := azblobstore.Open(ctx, "reports", "prod", &azblobstore.Options{Account: "fencestore"})
	if err != nil {
		log.Fatal(err)
	}
	s := objstore.New(b, nil)
	defer s.Close()
	// token comes from the lease that owns domain "monthly".
	const token = 42
	if _, err := s.Put(ctx, "monthly", "2026-11.csv", token, strings.NewReader("a,b\n"), -1); err != nil {
		log.Fatal(err)
	}
}

// Location names the container, prefix and endpoint, never credentials.
func ExampleBackend_Location() {
	b, err := azblobstore.Open(context.Background(), "reports", "prod", &azblobstore.Options{
		Endpoint: "http://127.0.0.1:10000/devstoreaccount1", // Azurite
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Location())
	// Output: azblob://reports/prod@http://127.0.0.1:10000/devstoreaccount1
}
