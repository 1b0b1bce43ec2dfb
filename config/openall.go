package config

import (
	"context"
	"errors"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/observe"
)

// OpenOptions tunes Open. nil means defaults.
type OpenOptions struct {
	// Coord is the coordinator URL (see OpenCoordinator); empty keeps
	// lease records in the store.
	Coord string
	// Store tunes the Store; Open sets its Issuer. Its Observer also
	// receives the coordinator's lease events.
	Store *objstore.Options
	// SkipProbe turns off the capability probes of the store and of a
	// store that keeps lease records. Only for stores known to honour
	// conditional writes.
	SkipProbe bool
	// ProbeCache keeps the probes' verdicts beyond this process
	// (objstore.Options.ProbeCache); Store.ProbeCache, when set, wins
	// for the store. Default none.
	ProbeCache driver.VerdictCache
	// WrapBackend, when set, wraps the backend storeURL names before
	// anything uses it: the Store writes through what it returns, and so
	// do lease records kept in the store (Coord empty). It is how tests
	// inject faults (faulty.Into) or count requests. Default: none.
	WrapBackend func(driver.Backend) driver.Backend
}

// Opened is a ready Store and the coordinator its URLs name.
type Opened struct {
	Store       *objstore.Store
	Coordinator *coord.Coordinator
}

// Close closes the coordinator's own backend, if any, and the store.
func (o *Opened) Close() error {
	return errors.Join(CloseCoordinator(o.Coordinator), o.Store.Close())
}

// Open opens the store storeURL names and the coordinator of opts.Coord,
// and returns a Store that asks the coordinator before a token raises a
// domain (objstore.Options.Issuer, through fence.Issuer), as gocloud's
// blob.OpenBucket gives a ready bucket for a URL. Like OpenBackend it
// sends no request; the store and a store that keeps lease records are
// probed before their first write.
func Open(ctx context.Context, storeURL string, opts *OpenOptions) (*Opened, error) {
	var o OpenOptions
	if opts != nil {
		o = *opts
	}
	b, err := OpenBackend(ctx, storeURL)
	if err != nil {
		return nil, err
	}
	if o.WrapBackend != nil {
		b = o.WrapBackend(b)
	}
	var obs observe.Observer
	if o.Store != nil {
		obs = o.Store.Observer
	}
	c, err := OpenCoordinator(ctx, o.Coord, b, &CoordinatorOptions{SkipProbe: o.SkipProbe, ProbeCache: o.ProbeCache, Observer: obs})
	if err != nil {
		b.Close()
		return nil, err
	}
	var so objstore.Options
	if o.Store != nil {
		so = *o.Store
	}
	so.Issuer = fence.Issuer(c)
	so.SkipProbe = so.SkipProbe || o.SkipProbe
	if so.ProbeCache == nil {
		so.ProbeCache = o.ProbeCache
	}
	return &Opened{Store: objstore.New(b, &so), Coordinator: c}, nil
}
