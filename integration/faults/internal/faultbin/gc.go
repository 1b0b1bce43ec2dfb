package main

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// runGC is the garbage collector: it runs Store.Collect with a grace of 0
// over every domain, pass after pass, beside the writers and the readers,
// until SIGTERM, and records each Collect as an operation with its
// counts. With cfg.Break set to spec.BreakGCUnnamed it runs a broken
// collector instead (the negative control).
func runGC(cfg spec.GC) error {
	p, err := start(cfg.History, cfg.Backend, cfg.Endpoint, cfg.Bucket)
	if err != nil {
		return err
	}
	defer p.close()
	stop, w, b := p.stop, p.w, p.b
	// Collect writes only the floor marker (If-None-Match); the
	// collector needs no lease and no probe.
	store := objstore.New(b, &objstore.Options{Holder: cfg.Client, SkipProbe: true})
	c := &hist.Client{Name: cfg.Client, W: w}
	rng := rand.New(rand.NewPCG(cfg.Seed, 3))
	timeout := time.Duration(cfg.OpTimeoutMillis) * time.Millisecond
	for stop.Err() == nil {
		for _, d := range cfg.Domains {
			if stop.Err() != nil {
				break
			}
			rec := c.Start(hist.OpGC, hist.Input{Domain: d})
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			var st map[string]int64
			if cfg.Break == spec.BreakGCUnnamed {
				st, err = collectUnnamed(ctx, store, b, d)
			} else {
				var res objstore.CollectResult
				res, err = store.Collect(ctx, d, 0)
				st = map[string]int64{
					spec.GCScanned: int64(res.Scanned), spec.GCLive: int64(res.Live),
					spec.GCDeleted: int64(res.Deleted), spec.GCPending: int64(res.Pending), spec.GCKept: int64(res.Kept),
				}
			}
			cancel()
			switch {
			case errors.Is(err, objstore.ErrNotFound):
				// Nothing committed to the domain yet.
				c.End(rec, hist.NotFound, hist.Output{Stats: st}, nil)
			case err != nil:
				c.End(rec, hist.Fail, hist.Output{Stats: st}, err)
			default:
				c.End(rec, hist.OK, hist.Output{Stats: st}, nil)
			}
		}
		sleep(stop, time.Duration(cfg.PauseMillis/2+rng.Int64N(cfg.PauseMillis+1))*time.Millisecond)
	}
	return nil
}

// collectUnnamed is the broken collector of the negative control: it
// deletes every version object and pack of domain that the current manifest does
// not name, including those a commit in progress is about to publish.
func collectUnnamed(ctx context.Context, store *objstore.Store, b driver.Backend, domain string) (map[string]int64, error) {
	st := map[string]int64{}
	sn, err := store.Snapshot(ctx, domain)
	if err != nil {
		return st, err
	}
	list, err := sn.List(ctx, nil)
	if err != nil {
		return st, err
	}
	named := make(map[string]bool, len(list))
	for _, v := range list {
		named[v.Object] = true
		if v.Pack != "" {
			named[v.Pack] = true
		}
	}
	var doomed []string
	for _, prefix := range []string{format.VersionPrefix(domain), format.PackPrefix(domain)} {
		err = b.List(ctx, prefix, func(o driver.ObjectInfo) error {
			st[spec.GCScanned]++
			if named[o.Key] {
				st[spec.GCLive]++
			} else {
				doomed = append(doomed, o.Key)
			}
			return nil
		})
		if err != nil {
			return st, err
		}
	}
	for _, k := range doomed {
		if err := b.Delete(ctx, k); err != nil {
			return st, err
		}
		st[spec.GCDeleted]++
	}
	return st, nil
}
