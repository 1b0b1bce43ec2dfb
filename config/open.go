package config

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/fencedstore/fence/config/registry"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/observe"
)

// DefaultStore is the store URL used when none is given: a directory
// named fence-data in the working directory.
const DefaultStore = "file://./fence-data"

// OpenBackend opens the object-store backend that rawURL names. The caller
// closes it. It sends no request: a missing bucket shows on first use
// (fence init creates it). Errors name the URL without credentials.
func OpenBackend(ctx context.Context, rawURL string) (driver.Backend, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	loc, err := parseStoreURL(rawURL)
	if err != nil {
		return nil, err
	}
	b, err := open(ctx, loc)
	if err != nil {
		return nil, fmt.Errorf("config: open store %q: %w", Redact(rawURL), err)
	}
	return b, nil
}

// parseStoreURL parses rawURL and refuses coordinator-only schemes.
func parseStoreURL(rawURL string) (Location, error) {
	loc, err := ParseURL(rawURL)
	if err != nil {
		return Location{}, err
	}
	if loc.Scheme == "dynamodb" {
		return Location{}, &URLError{URL: Redact(rawURL), Reason: "dynamodb:// names a lease table, not an object store; pass it as the coordinator (--coord); supported stores: " + SupportedStores()}
	}
	return loc, nil
}

// OpenCoordinator opens the lease coordinator that rawURL names:
//
//   - "" keeps lease records in store, beside each domain's manifest;
//     store must then be non-nil;
//   - dynamodb://TABLE issues leases from a DynamoDB table (see
//     dynamocoord), which must exist (fence init creates it);
//   - any store URL (file://, mem://, s3://, minio://, or a registered
//     scheme's, such as gs:// and azblob://) keeps lease records in that
//     store, a backend of its own.
//
// A coordinator that keeps lease records in a store probes it before its
// first write (driver.Probe) unless opts.SkipProbe; opts may be nil.
//
// When the coordinator opened a backend of its own, CloseCoordinator
// closes it. Opening sends no request. Errors name the URL without
// credentials.
func OpenCoordinator(ctx context.Context, rawURL string, store driver.Backend, opts *CoordinatorOptions) (*coord.Coordinator, error) {
	var o CoordinatorOptions
	if opts != nil {
		o = *opts
	}
	leases := &bucketlease.Options{SkipProbe: o.SkipProbe, ProbeCache: o.ProbeCache}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rawURL == "" {
		if store == nil {
			return nil, errors.New("config: no coordinator URL and no store to keep lease records in")
		}
		return coord.New(bucketlease.New(store, leases), o.coordOptions()...), nil
	}
	loc, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if loc.Scheme == "dynamodb" {
		d, err := openCoordinatorDriver(ctx, loc)
		if err != nil {
			return nil, fmt.Errorf("config: open coordinator %q: %w", Redact(rawURL), err)
		}
		return coord.New(d, o.coordOptions()...), nil
	}
	b, err := open(ctx, loc)
	if err != nil {
		return nil, fmt.Errorf("config: open coordinator %q: %w", Redact(rawURL), err)
	}
	return coord.New(&ownedDriver{Driver: bucketlease.New(b, leases), b: b}, o.coordOptions()...), nil
}

// CoordinatorOptions tunes OpenCoordinator. nil means defaults.
type CoordinatorOptions struct {
	// SkipProbe turns off the capability probe of a store that keeps
	// lease records, for stores known to honour conditional writes.
	SkipProbe bool
	// ProbeCache keeps that probe's verdict beyond this process
	// (bucketlease.Options.ProbeCache). Default none.
	ProbeCache driver.VerdictCache
	// Observer receives the coordinator's lease events and calls
	// (coord.WithObserver).
	Observer observe.Observer
}

func (o CoordinatorOptions) coordOptions() []coord.Option {
	if o.Observer == nil {
		return nil
	}
	return []coord.Option{coord.WithObserver(o.Observer)}
}

// LeaseBackend returns the backend in which c keeps its lease records,
// when c is a bucket-lease coordinator that OpenCoordinator opened on a
// backend of its own (a store URL given as the coordinator). It returns
// false for the default (records in the store, whose backend the caller
// has) and for dynamodb:// coordinators.
func LeaseBackend(c *coord.Coordinator) (driver.Backend, bool) {
	if od, ok := c.Driver().(*ownedDriver); ok {
		return od.b, true
	}
	return nil, false
}

// CloseCoordinator closes the backend that OpenCoordinator opened for c,
// if any. It never closes the store that lease records share.
func CloseCoordinator(c *coord.Coordinator) error {
	if od, ok := c.Driver().(*ownedDriver); ok {
		return od.Close()
	}
	return nil
}

// ownedDriver is a driver together with the backend opened for it alone.
type ownedDriver struct {
	coord.Driver
	b driver.Backend
}

func (d *ownedDriver) Close() error { return d.b.Close() }

func open(ctx context.Context, loc Location) (driver.Backend, error) {
	switch loc.Scheme {
	case "file":
		return filestore.Open(loc.Path)
	case "mem":
		return memBackend(loc.Path), nil
	}
	o, ok := openerOf(loc.Scheme)
	if !ok {
		return nil, errNoBackend(loc.Scheme)
	}
	return o.Open(ctx, loc)
}

// openerOf returns how to open and check the stores of scheme: its
// Opener (s3, minio) or its registered Scheme's.
func openerOf(scheme string) (registry.Opener, bool) {
	if o, ok := registry.LookupOpener(scheme); ok {
		return o, true
	}
	s, ok := lookup(scheme)
	return registry.Opener{Open: s.Open, Bucket: s.Bucket, Reached: s.Reached}, ok
}

// openCoordinatorDriver opens the driver of a coordinator-only URL
// (dynamodb://).
func openCoordinatorDriver(ctx context.Context, loc Location) (coord.Driver, error) {
	c, ok := registry.LookupCoordinator(loc.Scheme)
	if !ok {
		return nil, errNoBackend(loc.Scheme)
	}
	return c.Open(ctx, loc)
}

// errNoBackend says that this program cannot open URLs of scheme, which
// ParseURL has accepted: it does not happen unless a Location was built
// by hand.
func errNoBackend(scheme string) error {
	if reason := notLinked(scheme); reason != "" {
		return errors.New(reason)
	}
	return fmt.Errorf("scheme %q has no backend", scheme)
}

var (
	memMu    sync.Mutex
	memNamed = map[string]*memstore.Backend{}
)

// memBackend returns a fresh memory backend for name "", and the
// process-wide one of that name otherwise. Closing a shared one does not
// close it for the other users.
func memBackend(name string) driver.Backend {
	if name == "" {
		return memstore.New()
	}
	memMu.Lock()
	defer memMu.Unlock()
	b, ok := memNamed[name]
	if !ok {
		b = memstore.New()
		memNamed[name] = b
	}
	return sharedMem{b}
}

// sharedMem is a named memory backend; Close is a no-op because other
// opens of the same name still use it.
type sharedMem struct{ *memstore.Backend }

func (sharedMem) Close() error { return nil }
