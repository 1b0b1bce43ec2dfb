package s3store

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
)

func TestEnsureBucket(t *testing.T) {
	opts := testOptions(t)
	ctx := t.Context()
	var r [6]byte
	rand.Read(r[:])
	bucket := "fence-s3store-ensure-" + hex.EncodeToString(r[:])
	b, err := Open(ctx, bucket, "p", &opts)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := b.BucketExists(ctx); err != nil || ok {
		t.Fatalf("BucketExists before creation = %t, %v; want false, nil", ok, err)
	}
	t.Cleanup(func() { removeBucket(t, b.client, bucket) })
	// Concurrent and repeated calls all succeed.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = b.EnsureBucket(ctx) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("EnsureBucket #%d: %v", i, err)
		}
	}
	if err := b.EnsureBucket(ctx); err != nil {
		t.Fatalf("EnsureBucket on an existing bucket: %v", err)
	}
	if ok, err := b.BucketExists(ctx); err != nil || !ok {
		t.Fatalf("BucketExists after creation = %t, %v; want true, nil", ok, err)
	}
}

func TestBucketErrors(t *testing.T) {
	opts := testOptions(t)
	ctx := t.Context()
	// An endpoint nothing listens on: an error, not "missing".
	opts.Endpoint = "http://127.0.0.1:1"
	b, err := Open(ctx, "fence-unreachable", "", &opts)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := b.BucketExists(ctx); err == nil || ok {
		t.Fatalf("BucketExists on a closed port = %t, %v; want an error", ok, err)
	}
	if err := b.EnsureBucket(ctx); err == nil || !strings.Contains(err.Error(), "fence-unreachable") {
		t.Fatalf("EnsureBucket on a closed port: %v", err)
	}
	// Invalid options fail both without a request.
	bad := New(b.client, "", "", nil)
	if _, err := bad.BucketExists(ctx); err == nil {
		t.Fatal("BucketExists with an empty bucket name succeeded")
	}
	if err := bad.EnsureBucket(ctx); err == nil {
		t.Fatal("EnsureBucket with an empty bucket name succeeded")
	}
}
