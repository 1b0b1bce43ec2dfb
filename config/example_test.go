package config_test

import (
	"context"
	"fmt"
	"log"

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
	leases, err := config.OpenCoordinator(ctx, "", b)
	if err != nil {
		log.Fatal(err)
	}
	defer config.CloseCoordinator(leases)

	l, err := coord.Acquire(ctx, leases, "reports/monthly", &coord.AcquireOptions{Holder: "worker-1"})
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
	// config: URL "s3://bucket/prefix": s3:// URLs (S3 buckets) are not supported yet; supported: file://PATH, mem://[NAME]
}
