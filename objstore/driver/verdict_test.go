package driver_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/memstore"
)

// mapCache is a driver.VerdictCache in memory.
type mapCache struct {
	mu     sync.Mutex
	passed map[string]bool
}

func (c *mapCache) Passed(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.passed[key]
}

func (c *mapCache) Pass(key string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.passed == nil {
		c.passed = map[string]bool{}
	}
	c.passed[key] = true
	return nil
}

func (c *mapCache) Forget(key string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.passed, key)
	return nil
}

// countedPuts counts the writes that reach its backend.
type countedPuts struct {
	driver.Backend
	puts *atomic.Int64
}

func (b countedPuts) Put(ctx context.Context, key string, r io.Reader, size int64, o driver.PutOptions) (driver.ObjectInfo, error) {
	b.puts.Add(1)
	return b.Backend.Put(ctx, key, r, size, o)
}

// A verdict in the cache stands for a probe in a process that has none
// of its own; a probe that passes is recorded, and one that the cache
// no longer holds is made again.
func TestProbeVerdictCache(t *testing.T) {
	ctx := context.Background()
	var puts atomic.Int64
	b := countedPuts{memstore.New(), &puts}
	cache := &mapCache{}
	probe := func(want driver.Verdict, wantPuts bool) {
		t.Helper()
		before := puts.Load()
		v, err := driver.ProbeWith(ctx, b, cache)
		if err != nil || v != want {
			t.Fatalf("ProbeWith = %q, %v; want %q", v, err, want)
		}
		if wrote := puts.Load() > before; wrote != wantPuts {
			t.Fatalf("verdict %q: the probe wrote %d objects", v, puts.Load()-before)
		}
	}
	probe(driver.VerdictProbed, true)
	if !cache.Passed(driver.VerdictKey(b)) {
		t.Fatal("a probe that passed was not recorded in the cache")
	}
	probe(driver.VerdictProcess, false)

	driver.ForgetInProcess(b.Location()) // a new process
	probe(driver.VerdictCached, false)

	driver.ForgetInProcess(b.Location())
	_ = cache.Forget(driver.VerdictKey(b)) // expired
	probe(driver.VerdictProbed, true)
}

// What a cached verdict cannot see: a store that starts ignoring
// conditions within the verdict's lifetime. Once the verdict is gone,
// the probe refuses the store and no verdict is recorded; a cached one
// that a failing probe meets is dropped.
func TestProbeVerdictCacheOnUnsafeStore(t *testing.T) {
	ctx := context.Background()
	b := drivertest.IgnoreConditions(memstore.New())
	cache := &mapCache{}
	_ = cache.Pass(driver.VerdictKey(b))
	if v, err := driver.ProbeWith(ctx, b, cache); err != nil || v != driver.VerdictCached {
		t.Fatalf("ProbeWith with a cached verdict = %q, %v; want it to stand for the probe", v, err)
	}

	driver.ForgetInProcess(b.Location())
	_ = cache.Forget(driver.VerdictKey(b))
	if _, err := driver.ProbeWith(ctx, b, cache); !errors.Is(err, driver.ErrUnsafeStore) {
		t.Fatalf("ProbeWith = %v, want ErrUnsafeStore", err)
	}
	if cache.Passed(driver.VerdictKey(b)) {
		t.Fatal("a failed probe was recorded as passed")
	}
}

// Distrust drops the cached verdict (the next process probes) and
// keeps this process's.
func TestDistrustForgetsCachedVerdict(t *testing.T) {
	ctx := context.Background()
	b := memstore.New()
	cache := &mapCache{}
	if _, err := driver.ProbeWith(ctx, b, cache); err != nil {
		t.Fatal(err)
	}
	driver.Distrust(b)
	if cache.Passed(driver.VerdictKey(b)) {
		t.Fatal("Distrust left the cached verdict")
	}
	if v, err := driver.ProbeWith(ctx, b, cache); err != nil || v != driver.VerdictProcess {
		t.Fatalf("ProbeWith after Distrust = %q, %v; want this process's verdict", v, err)
	}
}

// The key names what the probe judged: another location, or other
// encryption asked for, is another verdict.
func TestVerdictKey(t *testing.T) {
	a, b := memstore.New(), memstore.New()
	if driver.VerdictKey(a) == driver.VerdictKey(b) {
		t.Fatalf("two locations share the key %q", driver.VerdictKey(a))
	}
	s := sseAsked{memstore.New()}
	if k := driver.VerdictKey(s); k == driver.VerdictKey(s.Backend) {
		t.Fatalf("encryption is not in the key %q", k)
	}
}

// sseAsked asks for encryption on the location of its memory store.
type sseAsked struct{ *memstore.Backend }

func (sseAsked) SSE() (string, string) { return "AES256", "" }
func (sseAsked) StoredSSE(context.Context, string) (string, string, error) {
	return "AES256", "", nil
}
