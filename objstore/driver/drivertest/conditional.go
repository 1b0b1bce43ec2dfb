package drivertest

import (
	"errors"
	"io"

	"github.com/fencedstore/fence/objstore/driver"
)

// conditionalGet: 304 on the current ETag, the content on a stale one.
func (c *backendCase) conditionalGet() {
	t, b := c.t, c.b
	key := c.p + "revalidate"
	first := c.put(key, []byte("one"), driver.PutOptions{})
	rc, _, err := b.Get(t.Context(), key, driver.GetOptions{IfNoneMatch: first.ETag})
	if !errors.Is(err, driver.ErrNotModified) || rc != nil {
		t.Fatalf("Get(IfNoneMatch: current ETag): reader %v, err %v; want ErrNotModified and no reader", rc != nil, err)
	}
	second := c.put(key, []byte("two!"), driver.PutOptions{})
	rc, info, err := b.Get(t.Context(), key, driver.GetOptions{IfNoneMatch: first.ETag})
	if err != nil {
		t.Fatalf("Get(IfNoneMatch: stale ETag): %v", err)
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(data) != "two!" || info.ETag != second.ETag {
		t.Fatalf("Get(IfNoneMatch: stale ETag) = %q (etag %q), %v; want the new content, etag %q", data, info.ETag, err, second.ETag)
	}
	if _, _, err := b.Get(t.Context(), c.p+"missing", driver.GetOptions{IfNoneMatch: first.ETag}); !errors.Is(err, driver.ErrNotFound) {
		t.Fatalf("Get(IfNoneMatch) of a missing key: %v, want ErrNotFound", err)
	}
}

// rangedGet: a range gives exactly its bytes, one that runs past the end
// is cut there, and ObjectInfo describes the whole object.
func (c *backendCase) rangedGet() {
	t, b := c.t, c.b
	key := c.p + "ranged"
	data := []byte("0123456789abcdefghij")
	info := c.put(key, data, driver.PutOptions{})
	for _, tc := range []struct {
		opts driver.GetOptions
		want string
	}{
		{driver.GetOptions{Offset: 0, Length: 1}, "0"},
		{driver.GetOptions{Offset: 5, Length: 5}, "56789"},
		{driver.GetOptions{Offset: 15}, "fghij"},
		{driver.GetOptions{Offset: 19, Length: 100}, "j"},
		{driver.GetOptions{Length: 20}, string(data)},
	} {
		rc, got, err := b.Get(t.Context(), key, tc.opts)
		if err != nil {
			t.Fatalf("Get(%+v): %v", tc.opts, err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(body) != tc.want {
			t.Fatalf("Get(%+v) = %q, %v; want %q", tc.opts, body, err, tc.want)
		}
		if got.Size != int64(len(data)) || got.ETag != info.ETag {
			t.Fatalf("Get(%+v): info size %d etag %q; want the whole object's, %d and %q", tc.opts, got.Size, got.ETag, len(data), info.ETag)
		}
	}
}
