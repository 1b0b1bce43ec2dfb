package serve_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/serve"
)

// evilKey is a key whose name is a script: pages must show it as text.
const evilKey = `<script>document.title="pwned";window.pwned=1</script>`

// fixture is a store with a story: domain "reports" where holder w1
// wrote under token 1, w2 broke the lease with token 2 and committed,
// and w1, paused, then tried to write under token 1 and was fenced;
// "quiet" whose lease was released; "stuck" whose lease expired
// unreleased; and "broken" whose manifest is corrupt.
type fixture struct {
	b          driver.Backend
	store      *objstore.Store
	c          *coord.Coordinator
	stale, new uint64 // the tokens of reports' fenced attempt and of the holder that fenced it
}

// backends are the real backends the handler tests run on.
func backends(t *testing.T) map[string]func(t *testing.T) driver.Backend {
	return map[string]func(t *testing.T) driver.Backend{
		"memstore": func(*testing.T) driver.Backend { return memstore.New() },
		"filestore": func(t *testing.T) driver.Backend {
			b, err := filestore.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// newFixture writes the story to b.
func newFixture(t *testing.T, b driver.Backend) *fixture {
	t.Helper()
	ctx := ctx(t)
	c := coord.New(bucketlease.New(b, nil))
	w1 := objstore.New(b, &objstore.Options{Holder: "w1@host-a"})
	w2 := objstore.New(b, &objstore.Options{Holder: "w2@host-b"})
	big := bytes.Repeat([]byte("x"), 10000) // above the inline limit: uploaded as a version
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	l1, err := c.TryAcquire(ctx, coord.Request{Domain: "reports", Holder: "w1@host-a", TTL: time.Hour})
	must(err)
	_, err = w1.Fence(ctx, "reports", l1.Token)
	must(err)
	_, err = w1.Put(ctx, "reports", "monthly.csv", l1.Token, bytes.NewReader(big), int64(len(big)))
	must(err)
	_, err = w1.Put(ctx, "reports", evilKey, l1.Token, strings.NewReader("evil"), 4)
	must(err)
	time.Sleep(20 * time.Millisecond)
	l2, err := c.TryAcquire(ctx, coord.Request{Domain: "reports", Holder: "w2@host-b", TTL: time.Hour, Force: true})
	must(err)
	_, err = w2.Fence(ctx, "reports", l2.Token)
	must(err)
	_, err = w2.Put(ctx, "reports", "monthly.csv", l2.Token, bytes.NewReader(big), int64(len(big)))
	must(err)
	time.Sleep(20 * time.Millisecond)
	// w1 wakes from its pause and writes with its old token.
	if _, err := w1.Put(ctx, "reports", "late.csv", l1.Token, bytes.NewReader(big), int64(len(big))); err == nil {
		t.Fatal("w1's stale write was accepted")
	}

	lq, err := c.TryAcquire(ctx, coord.Request{Domain: "quiet", Holder: "w3", TTL: time.Hour})
	must(err)
	_, err = w1.Put(ctx, "quiet", "a", lq.Token, strings.NewReader("a"), 1)
	must(err)
	must(c.Release(ctx, lq))

	ls, err := c.TryAcquire(ctx, coord.Request{Domain: "stuck", Holder: "w4", TTL: coord.MinTTL})
	must(err)
	_, err = w1.Put(ctx, "stuck", "b", ls.Token, strings.NewReader("b"), 1)
	must(err)

	_, err = w1.Put(ctx, "broken", "c", 1, strings.NewReader("c"), 1)
	must(err)
	_, err = b.Put(ctx, "broken/_fence/manifest.json", strings.NewReader("{not json"), 9, driver.PutOptions{})
	must(err)
	time.Sleep(coord.MinTTL + 50*time.Millisecond) // stuck's lease runs out
	return &fixture{b: b, store: objstore.New(b, nil), c: c, stale: l1.Token, new: l2.Token}
}

// serveFixture serves f over HTTP.
func serveFixture(t *testing.T, f *fixture, opts *serve.Options) *httptest.Server {
	srv := httptest.NewServer(serve.New(f.store, f.c, opts).Handler())
	t.Cleanup(srv.Close)
	return srv
}

// get fetches path, as JSON when accept says so, and returns the body.
func get(t *testing.T, srv *httptest.Server, path, accept string, want int) string {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), "GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: status %d, want %d:\n%s", path, resp.StatusCode, want, buf.String())
	}
	return buf.String()
}
