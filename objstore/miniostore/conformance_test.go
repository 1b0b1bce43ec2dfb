package miniostore

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

func TestConformance(t *testing.T) {
	_, opts := testEndpoint(t)
	t.Run("Backend", func(t *testing.T) {
		objstoretest.RunBackend(t, func(t *testing.T) objstore.Backend {
			b := newBucket(t, "", opts)
			skipNestedListing(t, b)
			return b
		})
	})
	// Under a prefix, with the smallest parts, so that LargeObject's
	// 9 MiB bodies (known and unknown size) take the multipart path.
	small := opts
	small.PartSize = MinPartSize
	t.Run("PrefixedMultipart", func(t *testing.T) {
		objstoretest.RunBackend(t, func(t *testing.T) objstore.Backend {
			b := newBucket(t, "tenant/a", small)
			skipNestedListing(t, b)
			return b
		})
	})
	t.Run("Store", func(t *testing.T) {
		objstoretest.RunStore(t, func(t *testing.T) objstore.Backend {
			return newBucket(t, "", opts)
		})
	})
}

// skipNestedListing skips the suite's List and KeyShapes cases when the
// store's listing hides nested keys, as MinIO's does (measured on the
// pinned build, single-drive and 4-drive erasure): while objects "a" and
// "a/b" both exist, ListObjectsV2 omits "a/b" (and "a/b/c") for every
// prefix, although GET and HEAD of "a/b" succeed. Those two cases create
// exactly such keys. fence's own layout never does (every object key
// ends in "@<token>-<id>" or a file name under the reserved "_fence/"
// segment, and none is ever the prefix of another up to a "/"), so
// fencing and garbage collection are unaffected.
func skipNestedListing(t *testing.T, b objstore.Backend) {
	name := t.Name()
	if !strings.HasSuffix(name, "/List") && !strings.HasSuffix(name, "/KeyShapes") {
		return
	}
	if hidden := nestedKeysHidden(t, b); hidden != "" {
		t.Skipf("this store's listing hides %q while its parent key exists (a known MinIO limitation; AWS S3 lists it), so this case cannot pass here", hidden)
	}
}

// nestedKeysHidden writes "nest/a" and "nest/a/b" and returns "nest/a/b"
// if List does not report it.
func nestedKeysHidden(t *testing.T, b objstore.Backend) string {
	t.Helper()
	ctx := t.Context()
	keys := []string{"nested-probe/a", "nested-probe/a/b"}
	for _, k := range keys {
		if _, err := b.Put(ctx, k, strings.NewReader("x"), 1, objstore.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := b.List(ctx, "nested-probe/", func(o objstore.ObjectInfo) error {
		got = append(got, o.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, k := range slices.Backward(keys) {
		if err := b.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, keys) {
		return keys[1]
	}
	return ""
}

// TestPrefix checks that a prefixed backend writes under its prefix and
// reports keys without it.
func TestPrefix(t *testing.T) {
	ep, opts := testEndpoint(t)
	b := newBucket(t, "/tenant/x/", opts)
	if b.Prefix() != "tenant/x/" {
		t.Fatalf("Prefix() = %q", b.Prefix())
	}
	if want := "minio://" + b.Bucket() + "/tenant/x@" + ep; b.Location() != want {
		t.Fatalf("Location() = %q, want %q", b.Location(), want)
	}
	ctx := t.Context()
	if _, err := b.Put(ctx, "k", strings.NewReader("v"), 1, objstore.PutOptions{IfNoneMatch: true}); err != nil {
		t.Fatal(err)
	}
	obj, err := b.client.GetObject(ctx, b.Bucket(), "tenant/x/k", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, err = buf.ReadFrom(obj)
	obj.Close()
	if err != nil || buf.String() != "v" {
		t.Fatalf("tenant/x/k = %q, %v", buf.String(), err)
	}
	var keys []string
	if err := b.List(ctx, "", func(o objstore.ObjectInfo) error { keys = append(keys, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys, []string{"k"}) {
		t.Fatalf("List = %q, want [k]", keys)
	}
}
