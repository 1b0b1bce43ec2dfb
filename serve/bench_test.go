package serve_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/serve"
)

// BenchmarkDomainsFirstPage serves the first page of domains (50, JSON)
// of a store holding 2,000 domains, each with a lease and a commit, and
// reports its time as a multiple of one list call of the store (one
// List of the backend, up to 1,000 objects: one S3 ListObjectsV2 page):
// x-list. The first page reads every domain for its summary (counts by
// state, the domains in trouble), so its cost grows with the store's
// domains; a later page (?after=) reads only its own.
func BenchmarkDomainsFirstPage(b *testing.B) {
	ctx := context.Background()
	be := memstore.New()
	store := objstore.New(be, nil)
	c := coord.New(bucketlease.New(be, nil))
	for i := range 2000 {
		d := fmt.Sprintf("jobs/d%04d", i)
		l, err := c.TryAcquire(ctx, coord.Request{Domain: d, Holder: "w", TTL: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := store.Put(ctx, d, "out.csv", l.Token, strings.NewReader("a,b\n"), 4); err != nil {
			b.Fatal(err)
		}
	}
	list := func() {
		n := 0
		stop := errors.New("stop")
		err := be.List(ctx, "", func(driver.ObjectInfo) error {
			if n++; n == 1000 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) {
			b.Fatal(err)
		}
	}
	const lists = 50
	start := time.Now()
	for range lists {
		list()
	}
	perList := time.Since(start) / lists
	srv := httptest.NewServer(serve.New(objstore.New(be, nil), c, nil).Handler())
	defer srv.Close()
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.Get(srv.URL + "/?format=json")
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(resp, err)
		}
		resp.Body.Close()
	}
	perPage := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(perPage)/float64(perList), "x-list")
	b.ReportMetric(float64(perList.Microseconds()), "us/list")
}
