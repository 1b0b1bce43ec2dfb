package main

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/plain"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/objstore"
)

func runReader(cfg spec.Reader) error {
	p, err := start(cfg.History, cfg.Backend, cfg.Endpoint, cfg.Bucket)
	if err != nil {
		return err
	}
	defer p.close()
	stop, w, b := p.stop, p.w, p.b
	// Reads never write, so the capability probe is not needed; and no
	// version is served from memory, so that a reader notices a version
	// the collector deleted.
	store := objstore.New(b, &objstore.Options{SkipProbe: true, VersionCacheBytes: -1})
	timeout := time.Duration(cfg.OpTimeoutMillis) * time.Millisecond
	var wg sync.WaitGroup
	for i, name := range cfg.Clients {
		c := &hist.Client{Name: name, W: w}
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
		wg.Go(func() {
			for stop.Err() == nil {
				domain := cfg.Domains[rng.IntN(len(cfg.Domains))]
				read(stop, c, store, domain, timeout)
				if cfg.Plain && stop.Err() == nil {
					plain.Read(c, b, domain, cfg.Keys[rng.IntN(len(cfg.Keys))], timeout)
				}
				sleep(stop, time.Duration(cfg.PauseMillis/2+rng.Int64N(cfg.PauseMillis+1))*time.Millisecond)
			}
		})
	}
	wg.Wait()
	return nil
}

// read takes a snapshot of domain and reads every live key through it,
// and records it. It returns the values read, or nil if the read failed.
func read(stop context.Context, c *hist.Client, store *objstore.Store, domain string, timeout time.Duration) map[string]string {
	if stop.Err() != nil {
		return nil
	}
	rec := c.Start(hist.OpRead, hist.Input{Domain: domain})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	sn, err := store.Snapshot(ctx, domain)
	if errors.Is(err, objstore.ErrNotFound) {
		c.End(rec, hist.NotFound, hist.Output{}, nil)
		return map[string]string{}
	}
	if err != nil {
		c.End(rec, hist.Fail, hist.Output{}, err)
		return nil
	}
	out := hist.Output{Seq: sn.Seq(), Highest: sn.Highest(), Values: map[string]string{}, Versions: map[string]string{}}
	list, err := sn.List(ctx, nil)
	if err != nil {
		c.End(rec, hist.Fail, out, err)
		return nil
	}
	for _, v := range list {
		data, _, err := sn.ReadAll(ctx, v.Key)
		if err != nil {
			switch {
			case errors.Is(err, objstore.ErrIntegrity):
				out.Class = hist.ClassIntegrity
			case errors.Is(err, objstore.ErrDataLoss), errors.Is(err, objstore.ErrNotFound):
				// Data loss (the current manifest names it) or a version
				// superseded and collected: I4 judges which, from the
				// collector's deletions.
				out.Class = hist.ClassMissing
				obj := v.Object
				if v.Pack != "" {
					obj = v.Pack // the object that holds the bytes
				}
				out.Missing = map[string]string{v.Key: obj}
			}
			c.End(rec, hist.Fail, out, err)
			return nil
		}
		out.Values[v.Key] = string(data)
		out.Versions[v.Key] = v.Object
	}
	c.End(rec, hist.OK, out, nil)
	return out.Values
}
