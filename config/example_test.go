package config_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// Open a store and its default coordinator (lease records in the store)
// from URLs, as the fence CLI does.
func ExampleOpenCoordinator() {
	ctx := context.Background()
	b, err := config.OpenBackend(ctx, "mem://") // or "file://./fence-data"
	if err != nil {
		log.Fatal(err)
	}
	store := objstore.New(b, nil)
	defer store.Close()
	leases, err := config.OpenCoordinator(ctx, "", b, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer config.CloseCoordinator(leases)

	l, err := leases.TakeLease(ctx, "reports/monthly", &coord.TakeOptions{Holder: "worker-1"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("token", l.Token)
	// Output: token 1
}

func ExampleRedact() {
	fmt.Println(config.Redact("s3://AKIAEXAMPLE:secret@bucket/prefix?region=eu-west-1&session_token=abc"))
	_, err := config.OpenBackend(context.Background(), "s3://AKIAEXAMPLE:secret@bucket/prefix")
	fmt.Println(err)
	// Output:
	// s3://bucket/prefix?region=eu-west-1&session_token=REDACTED
	// config: URL "s3://bucket/prefix": credentials in URLs are not accepted: fence takes credentials only from the standard AWS chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE and the shared credentials file, or an instance or task role), never from URLs
}

// Create what a store needs, then check it, as `fence init` and `fence
// doctor` do. With s3:// or minio:// URLs Init creates the bucket, and
// with a dynamodb:// coordinator the table.
func ExampleDoctor() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "fence-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store := "file://" + filepath.Join(dir, "store")

	created, err := config.Init(ctx, store, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(created[0].Kind, "created:", created[0].Created)

	checks, err := config.Doctor(ctx, store, "", &config.DoctorOptions{Domain: "example/doctor"})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range checks {
		fmt.Println(c.Status, c.Name)
	}
	// Output:
	// directory created: true
	// ok store reachable
	// ok directory exists
	// ok conditional writes honoured
	// ok coordinator reachable
	// ok test acquisition and release
}
