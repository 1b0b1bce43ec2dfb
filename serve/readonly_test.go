package serve_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/policy"
	"github.com/fencedstore/fence/serve"
)

// calls records the IAM action of every call to a backend and a
// coordinator driver, and refuses every write.
type calls struct {
	t  *testing.T
	mu sync.Mutex
	m  map[string]int // IAM action -> calls
}

func (c *calls) add(action string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[action]++
}

var errWrite = errors.New("a write while serving")

func (c *calls) write(action, what string) error {
	c.add(action)
	c.t.Errorf("serve wrote: %s", what)
	return errWrite
}

// readOnlyBackend fails the test on any Put or Delete.
type readOnlyBackend struct {
	driver.Backend
	c *calls
}

func (b readOnlyBackend) Get(ctx context.Context, key string, o driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	b.c.add("s3:GetObject")
	return b.Backend.Get(ctx, key, o)
}

func (b readOnlyBackend) Head(ctx context.Context, key string) (driver.ObjectInfo, error) {
	b.c.add("s3:GetObject")
	return b.Backend.Head(ctx, key)
}

func (b readOnlyBackend) List(ctx context.Context, prefix string, fn func(driver.ObjectInfo) error) error {
	b.c.add("s3:ListBucket")
	return b.Backend.List(ctx, prefix, fn)
}

func (b readOnlyBackend) Put(_ context.Context, key string, _ io.Reader, _ int64, _ driver.PutOptions) (driver.ObjectInfo, error) {
	return driver.ObjectInfo{}, b.c.write("s3:PutObject", "Put "+key)
}

func (b readOnlyBackend) Delete(_ context.Context, key string) error {
	return b.c.write("s3:DeleteObject", "Delete "+key)
}

// readOnlyDriver fails the test on any lease change. Its State stands
// for DynamoDB's GetItem (dynamocoord reads a lease with one GetItem);
// over a bucket-lease driver it also reads through the backend.
type readOnlyDriver struct {
	coord.Driver
	c *calls
}

func (d readOnlyDriver) TryAcquire(context.Context, coord.Request) (coord.Lease, error) {
	return coord.Lease{}, d.c.write("dynamodb:UpdateItem", "TryAcquire")
}

func (d readOnlyDriver) Renew(context.Context, coord.Lease, time.Duration) (coord.Lease, error) {
	return coord.Lease{}, d.c.write("dynamodb:UpdateItem", "Renew")
}

func (d readOnlyDriver) Release(context.Context, coord.Lease) error {
	return d.c.write("dynamodb:UpdateItem", "Release")
}

func (d readOnlyDriver) State(ctx context.Context, domain string) (coord.State, error) {
	d.c.add("dynamodb:GetItem")
	return d.Driver.State(ctx, domain)
}

// Serving every page writes nothing, to the store or to the leases, and
// every call it makes is an action of the reader role's IAM policy.
func TestServingNeverWrites(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, open(t))
			c := &calls{t: t, m: map[string]int{}}
			rb := readOnlyBackend{f.b, c}
			f.store = objstore.New(rb, nil)
			f.c = coord.New(readOnlyDriver{f.c.Driver(), c})
			srv := serveFixture(t, f, &serve.Options{PageSize: 2})
			trail, err := fence.Audit(ctx(t), objstore.New(f.b, nil), nil, "reports")
			if err != nil {
				t.Fatal(err)
			}
			p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200))
			paths := []string{"/", "/?after=" + p.Next, "/?limit=1", "/domain/quiet", "/domain/stuck", "/domain/nosuch", "/domain/reports?limit=1",
				"/commit/" + trail.Events[0].CommitID + "/reports", "/healthz", "/style.css"}
			for _, path := range paths {
				for _, accept := range []string{"", "application/json"} {
					get(t, srv, path, accept, okStatus(path))
				}
			}
			get(t, srv, "/domain/reports", "", 200)
			get(t, srv, "/domain/broken", "", 502)
			doc, err := policy.IAM(policy.Reader, policy.Target{Bucket: "b", Table: "t"})
			if err != nil {
				t.Fatal(err)
			}
			allowed := doc.Actions()
			if len(c.m) == 0 {
				t.Fatal("no calls recorded: the test proves nothing")
			}
			for action, n := range c.m {
				if !slices.Contains(allowed, action) {
					t.Errorf("serve called %s (%d times), which the reader role %v does not allow", action, n, allowed)
				}
			}
			t.Logf("calls %v; reader role allows %v", c.m, allowed)
		})
	}
}

// okStatus is the status of a page of the fixture.
func okStatus(path string) int {
	if path == "/domain/nosuch" {
		return 404
	}
	return 200
}

// A coordinator that cannot be reached spoils only the lease columns,
// and the page says so.
func TestUnreachableCoordinator(t *testing.T) {
	f := newFixture(t, backends(t)["memstore"](t))
	f.c = coord.New(downDriver{})
	srv := serveFixture(t, f, nil)
	p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200))
	if p.Banner == nil || len(p.Domains) != 4 {
		t.Fatalf("page %+v, want 4 domains and a coordinator error", p)
	}
	if html := get(t, srv, "/", "", 200); !contains(html, "The coordinator is unreachable", "connection refused") {
		t.Errorf("the page does not say the coordinator is unreachable:\n%s", html)
	}
	d := decode[serve.DomainPage](t, get(t, srv, "/domain/reports?format=json", "", 200))
	if d.LeaseError == "" || len(d.Attempts) != 1 {
		t.Errorf("domain page %+v, want a lease error and the fenced attempt", d)
	}
}

type downDriver struct{ coord.Driver }

func (downDriver) State(context.Context, string) (coord.State, error) {
	return coord.State{}, fmt.Errorf("dial tcp 127.0.0.1:1: connection refused")
}

// A store that cannot be listed (a missing bucket) gives a page that
// says why.
func TestMissingBucket(t *testing.T) {
	f := newFixture(t, backends(t)["memstore"](t))
	f.store = objstore.New(missingBucket{f.b}, nil)
	srv := serveFixture(t, f, nil)
	if html := get(t, srv, "/", "", 502); !contains(html, "NoSuchBucket", `id="error"`) {
		t.Errorf("the page does not say the bucket is missing:\n%s", html)
	}
	if body := get(t, srv, "/", "application/json", 502); !contains(body, `"error":`, "NoSuchBucket") {
		t.Errorf("JSON error %s", body)
	}
}

type missingBucket struct{ driver.Backend }

func (missingBucket) List(context.Context, string, func(driver.ObjectInfo) error) error {
	return errors.New("s3: list: NoSuchBucket: The specified bucket does not exist")
}

// A coordinator that does not answer costs a page at most part of the
// request's time: the domains still show, each lease saying why not.
func TestSilentCoordinator(t *testing.T) {
	f := newFixture(t, backends(t)["memstore"](t))
	f.c = coord.New(silentDriver{})
	srv := serveFixture(t, f, &serve.Options{Timeout: 2 * time.Second})
	start := time.Now()
	p := decode[serve.DomainsPage](t, get(t, srv, "/?format=json", "", 200))
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("the page took %s", d)
	}
	if p.Banner == nil || len(p.Domains) != 4 {
		t.Fatalf("page %+v, want 4 domains and a coordinator error", p)
	}
	for _, r := range p.Domains {
		if r.Domain == "reports" && (r.Highest != f.new || r.LeaseError == "") {
			t.Errorf("reports: %+v, want its highest token and a lease error", r)
		}
	}
}

type silentDriver struct{ coord.Driver }

func (silentDriver) State(ctx context.Context, _ string) (coord.State, error) {
	<-ctx.Done()
	return coord.State{}, ctx.Err()
}
