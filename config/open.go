package config

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// DefaultStore is the store URL used when none is given: a directory
// named fence-data in the working directory.
const DefaultStore = "file://./fence-data"

// OpenBackend opens the object-store backend that rawURL names. The caller
// closes it. Errors name the URL without credentials.
func OpenBackend(ctx context.Context, rawURL string) (objstore.Backend, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	loc, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	b, err := open(loc)
	if err != nil {
		return nil, fmt.Errorf("config: open store %q: %w", Redact(rawURL), err)
	}
	return b, nil
}

// OpenCoordinator opens the lease coordinator that rawURL names. An empty
// rawURL keeps lease records in store, beside each domain's manifest;
// store must then be non-nil. A file:// or mem:// URL keeps them in a
// backend of their own.
//
// When the coordinator opened a backend of its own, the returned value
// also implements io.Closer, which closes that backend; CloseCoordinator
// does the type check. Errors name the URL without credentials.
func OpenCoordinator(ctx context.Context, rawURL string, store objstore.Backend) (coord.Coordinator, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rawURL == "" {
		if store == nil {
			return nil, errors.New("config: no coordinator URL and no store to keep lease records in")
		}
		return bucketlease.New(store, nil), nil
	}
	loc, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	b, err := open(loc)
	if err != nil {
		return nil, fmt.Errorf("config: open coordinator %q: %w", Redact(rawURL), err)
	}
	return &ownedCoordinator{Coordinator: bucketlease.New(b, nil), b: b}, nil
}

// CloseCoordinator closes the backend that OpenCoordinator opened for c,
// if any. It never closes the store that lease records share.
func CloseCoordinator(c coord.Coordinator) error {
	if oc, ok := c.(*ownedCoordinator); ok {
		return oc.Close()
	}
	return nil
}

// ownedCoordinator is a coordinator together with the backend opened for
// it alone.
type ownedCoordinator struct {
	coord.Coordinator
	b objstore.Backend
}

func (c *ownedCoordinator) Close() error { return c.b.Close() }

func open(loc Location) (objstore.Backend, error) {
	switch loc.Scheme {
	case "file":
		return filestore.Open(loc.Path)
	case "mem":
		return memBackend(loc.Path), nil
	}
	// ParseURL accepts no other scheme.
	return nil, fmt.Errorf("scheme %q has no backend", loc.Scheme)
}

var (
	memMu    sync.Mutex
	memNamed = map[string]*memstore.Backend{}
)

// memBackend returns a fresh memory backend for name "", and the
// process-wide one of that name otherwise. Closing a shared one does not
// close it for the other users.
func memBackend(name string) objstore.Backend {
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
