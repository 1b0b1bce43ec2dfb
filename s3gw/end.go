package s3gw

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fencedstore/fence/objstore"
)

// Changes stops the gateway's writes, waits for those in progress, and
// returns what the job wrote as the changes of one commit: a PutReceipt
// for every key it staged and a DeleteKey for every key it deleted. With
// CommitEach every write is already published, and there are none. It
// is fence exec's output (job.Output): the commit that publishes the
// whole output or none of it. The function it returns does nothing.
func (g *Gateway) Changes(ctx context.Context, store *objstore.Store, domain string) ([]objstore.Change, func(), error) {
	if store != g.o.Store || domain != g.o.Domain {
		return nil, nil, fmt.Errorf("s3gw: Changes for domain %q of another store: this gateway writes domain %q", domain, g.o.Domain)
	}
	if err := g.Stop(ctx); err != nil {
		return nil, nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if errors.Is(g.stop, errLeaseLost) {
		return nil, nil, fmt.Errorf("s3gw: domain %q: %w", g.o.Domain, g.stop)
	}
	var changes []objstore.Change
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range g.staged {
			if !yield(k) {
				return
			}
		}
	}) {
		changes = append(changes, g.staged[k].change(k))
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range g.deleted {
			if !yield(k) {
				return
			}
		}
	}) {
		changes = append(changes, objstore.DeleteKey(k))
	}
	return changes, func() {}, nil
}

// Close ends the gateway once its job has: it refuses every later
// write, aborts the multipart uploads left open, discards the staged
// values later writes replaced and, unless published says the job's
// commit landed, what the job staged, so that a
// job that failed, or whose lease was lost, leaves nothing staged behind
// it. (A staged value its commit published is never discarded: the store
// refuses to.) What Close cannot delete, gc deletes once a newer token
// passes the gateway's.
func (g *Gateway) Close(ctx context.Context, published bool) error {
	g.mu.Lock()
	if g.stop == nil {
		g.stop = errStopped
	}
	uploads := g.uploads
	g.uploads = map[string]*upload{}
	discard := g.dropped
	g.dropped = nil
	if !published {
		for _, o := range g.staged {
			if !o.held {
				discard = append(discard, o.receipt)
			}
		}
		g.held = 0
		g.staged = map[string]*object{}
	}
	g.mu.Unlock()
	var errs []error
	for _, u := range uploads {
		u.mu.Lock()
		finished := u.finished != nil
		u.mu.Unlock()
		if !finished {
			if err := u.pu.Abort(ctx); err != nil {
				errs = append(errs, fmt.Errorf("abort the multipart upload of %q: %w", u.s3key, err))
			}
		}
	}
	if len(discard) > 0 {
		if err := g.o.Store.DiscardStaged(ctx, discard...); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("s3gw: close: %w", err)
	}
	return nil
}
