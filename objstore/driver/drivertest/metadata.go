package drivertest

import (
	"errors"
	"strings"

	"github.com/fencedstore/fence/objstore/driver"
)

// metadata: a backend with the Metadata capability stores a Put's
// metadata, returns it from Head and Get with lower-case names, and
// replaces it with the object; one without fails such a Put with
// ErrUnsupported and stores nothing.
func (c *backendCase) metadata() {
	t, ctx, key := c.t, c.t.Context(), c.p+"meta"
	meta := map[string]string{"fence-seq": "42", "fence-token": "7"}
	_, err := c.b.Put(ctx, key, strings.NewReader("plain"), 5, driver.PutOptions{Metadata: meta})
	if !driver.CapabilitiesOf(c.b).Metadata {
		if !errors.Is(err, driver.ErrUnsupported) {
			t.Fatalf("Put with metadata on a backend without the capability: %v; want ErrUnsupported", err)
		}
		if _, herr := c.b.Head(ctx, key); !errors.Is(herr, driver.ErrNotFound) {
			t.Fatalf("a refused Put stored the object: Head = %v", herr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, got map[string]string, want map[string]string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: metadata %v; want %v", what, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s: metadata %v; want %v", what, got, want)
			}
		}
	}
	info, err := c.b.Head(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	check("Head", info.Metadata, meta)
	rc, info, err := c.b.Get(ctx, key, driver.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	check("Get", info.Metadata, meta)
	// A conditional overwrite replaces the metadata with the object.
	next := map[string]string{"fence-seq": "43"}
	if _, err := c.b.Put(ctx, key, strings.NewReader("newer"), 5, driver.PutOptions{Mode: driver.Update{ETag: info.ETag}, Metadata: next}); err != nil {
		t.Fatal(err)
	}
	info, err = c.b.Head(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	check("Head after the overwrite", info.Metadata, next)
}
