package miniostore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEnsureBucket(t *testing.T) {
	ep, opts := testEndpoint(t)
	ctx := t.Context()
	var r [6]byte
	rand.Read(r[:])
	bucket := "fence-miniostore-ensure-" + hex.EncodeToString(r[:])
	b, err := Open(ep, bucket, "p", &opts)
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
	_, opts := testEndpoint(t)
	// minio-go retries a refused connection for about 5 seconds.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	// An endpoint nothing listens on: an error, not "missing".
	b, err := Open("http://127.0.0.1:1", "fence-unreachable", "", &opts)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := b.BucketExists(ctx); err == nil || ok {
		t.Fatalf("BucketExists on a closed port = %t, %v; want an error", ok, err)
	}
	if err := b.EnsureBucket(ctx); err == nil || !strings.Contains(err.Error(), "fence-unreachable") {
		t.Fatalf("EnsureBucket on a closed port: %v", err)
	}
	// An invalid configuration fails both without a request.
	bad := New(b.client, "", "")
	if _, err := bad.BucketExists(ctx); err == nil {
		t.Fatal("BucketExists with an empty bucket name succeeded")
	}
	if err := bad.EnsureBucket(ctx); err == nil {
		t.Fatal("EnsureBucket with an empty bucket name succeeded")
	}
}
