package gcsstore

import (
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// TestMissingBucket: Put, Get, Head and List of a bucket that does not
// exist fail with driver.ErrNoBucket (and not driver.ErrNotFound, a
// missing key), saying the bucket does not exist and where;
// EnsureBucket creates it, and is idempotent.
func TestMissingBucket(t *testing.T) {
	ep := testEndpoint(t)
	ctx := t.Context()
	name := bucketName()
	b, err := Open(ctx, name, "", &Options{Endpoint: ep})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	want := "bucket \"" + name + "\" does not exist at " + ep
	check := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, driver.ErrNoBucket) || errors.Is(err, driver.ErrNotFound) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s in a missing bucket: %v; want ErrNoBucket, not ErrNotFound, saying %s", op, err, want)
		}
	}
	for _, mode := range []driver.PutMode{nil, driver.Create{}, driver.Update{ETag: "5"}} {
		_, err := b.Put(ctx, "k", strings.NewReader("v"), 1, driver.PutOptions{Mode: mode})
		check("Put", err)
	}
	_, _, err = b.Get(ctx, "k", driver.GetOptions{})
	check("Get", err)
	_, err = b.Head(ctx, "k")
	check("Head", err)
	check("List", b.List(ctx, "", func(driver.ObjectInfo) error { return nil }))
	if ok, err := b.BucketExists(ctx); ok || err != nil {
		t.Fatalf("BucketExists of a missing bucket = %t, %v", ok, err)
	}
	for range 2 {
		if err := b.EnsureBucket(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { removeBucket(t, b.bucket) })
	if ok, err := b.BucketExists(ctx); !ok || err != nil {
		t.Fatalf("BucketExists after EnsureBucket = %t, %v", ok, err)
	}
}
