package objstoretest

import (
	"errors"
	"io"

	"github.com/fencedstore/fence/objstore"
)

// conditionalGet checks objstore.ConditionalGetter, for backends that
// implement it: 304 on the current ETag, the content on a stale one.
func (c *backendCase) conditionalGet() {
	t := c.t
	cg, ok := c.b.(objstore.ConditionalGetter)
	if !ok {
		t.Skip("backend does not implement objstore.ConditionalGetter")
	}
	key := c.p + "revalidate"
	first := c.put(key, []byte("one"), objstore.PutOptions{})
	rc, _, err := cg.GetIfNoneMatch(t.Context(), key, first.ETag)
	if !errors.Is(err, objstore.ErrNotModified) || rc != nil {
		t.Fatalf("GetIfNoneMatch with the current ETag: reader %v, err %v; want ErrNotModified and no reader", rc != nil, err)
	}
	second := c.put(key, []byte("two!"), objstore.PutOptions{})
	rc, info, err := cg.GetIfNoneMatch(t.Context(), key, first.ETag)
	if err != nil {
		t.Fatalf("GetIfNoneMatch with a stale ETag: %v", err)
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(data) != "two!" || info.ETag != second.ETag {
		t.Fatalf("GetIfNoneMatch with a stale ETag = %q (etag %q), %v; want the new content, etag %q", data, info.ETag, err, second.ETag)
	}
	if _, _, err := cg.GetIfNoneMatch(t.Context(), c.p+"missing", first.ETag); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("GetIfNoneMatch of a missing key: %v, want ErrNotFound", err)
	}
}
