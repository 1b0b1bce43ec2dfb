package objstoretest

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// errInjected is an ambiguous error: it matches none of the backend error
// classes, as a timeout or a 5xx would not.
var errInjected = errors.New("objstoretest: injected 503 SlowDown")

// faulty wraps any backend so the suite can inject faults on backends that
// have no hooks of their own (MinIO, S3). Rules apply to puts only; each
// rule fires once.
type faulty struct {
	driver.Backend
	mu    sync.Mutex
	rules []rule
}

type rule struct {
	match func(key string, opts driver.PutOptions) bool
	// before fails the put without applying it; after applies it, then
	// replaces its reply.
	before, after error
	// pause blocks the put, before applying it, until the channel closes.
	pause <-chan struct{}
	// then runs after the put was applied, before its reply returns.
	then func()
}

func (f *faulty) add(r rule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, r)
}

func (f *faulty) take(key string, opts driver.PutOptions) (rule, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, r := range f.rules {
		if r.match(key, opts) {
			f.rules = append(f.rules[:i], f.rules[i+1:]...)
			return r, true
		}
	}
	return rule{}, false
}

func (f *faulty) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	r, ok := f.take(key, opts)
	if !ok {
		return f.Backend.Put(ctx, key, body, size, opts)
	}
	if r.pause != nil {
		select {
		case <-r.pause:
		case <-ctx.Done():
			return driver.ObjectInfo{}, ctx.Err()
		}
	}
	if r.before != nil {
		return driver.ObjectInfo{}, r.before
	}
	info, err := f.Backend.Put(ctx, key, body, size, opts)
	if err == nil && r.then != nil {
		r.then()
	}
	if err == nil && r.after != nil {
		return driver.ObjectInfo{}, r.after
	}
	return info, err
}

// manifestPut matches conditional writes of domain's manifest.
func manifestPut(domain string) func(string, driver.PutOptions) bool {
	return func(key string, _ driver.PutOptions) bool { return key == format.ManifestKey(domain) }
}

// conflictErr is a 409 ConditionalRequestConflict.
var conflictErr = errors.Join(driver.ErrConflict, errors.New("objstoretest: injected 409"))
