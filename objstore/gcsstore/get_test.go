package gcsstore

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// countingBucket is newBucket through a proxy that counts the requests
// sent to the emulator after the bucket exists.
func countingBucket(t *testing.T) (*Backend, *atomic.Int64) {
	t.Helper()
	target, err := url.Parse(testEndpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		r.Host = target.Host // the emulator routes by its own host name
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	b := newBucket(t, "", Options{})
	counted, err := Open(t.Context(), b.name, "", &Options{Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { counted.Close() })
	return counted, &n
}

// TestGetOneRequest: a Get is one request, whole or ranged, and returns
// the generation, size and metadata Head returns; a Get with the current
// generation in IfNoneMatch is ErrNotModified, in one request too.
func TestGetOneRequest(t *testing.T) {
	b, n := countingBucket(t)
	ctx := t.Context()
	meta := map[string]string{"fence-seq": "7", "fence-domain": "d"}
	if _, err := b.Put(ctx, "k", strings.NewReader("0123456789"), 10, driver.PutOptions{Metadata: meta}); err != nil {
		t.Fatal(err)
	}
	head, err := b.Head(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts driver.GetOptions
		want string
	}{
		{driver.GetOptions{}, "0123456789"},
		{driver.GetOptions{Offset: 3, Length: 4}, "3456"},
		{driver.GetOptions{Offset: 8}, "89"},
		{driver.GetOptions{Offset: 10}, ""},
	} {
		before := n.Load()
		rc, info, err := b.Get(ctx, "k", c.opts)
		if err != nil {
			t.Fatalf("Get %+v: %v", c.opts, err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(data) != c.want {
			t.Fatalf("Get %+v read %q, %v; want %q", c.opts, data, err, c.want)
		}
		if info.ETag != head.ETag || info.Size != 10 || info.Metadata["fence-seq"] != "7" || info.Metadata["fence-domain"] != "d" {
			t.Fatalf("Get %+v info %+v; want Head's generation %s, size 10 and metadata %v", c.opts, info, head.ETag, meta)
		}
		if got := n.Load() - before; got != 1 && c.opts.Offset < 10 {
			t.Fatalf("Get %+v took %d requests; want 1", c.opts, got)
		}
	}
	before := n.Load()
	if _, _, err := b.Get(ctx, "k", driver.GetOptions{IfNoneMatch: head.ETag}); !errors.Is(err, driver.ErrNotModified) {
		t.Fatalf("Get with the current generation in IfNoneMatch: %v; want ErrNotModified", err)
	}
	if got := n.Load() - before; got != 1 {
		t.Fatalf("a revalidation took %d requests; want 1", got)
	}
	if _, _, err := b.Get(ctx, "missing", driver.GetOptions{}); !errors.Is(err, driver.ErrNotFound) {
		t.Fatalf("Get of a missing object: %v; want ErrNotFound", err)
	}
}
