package objstore

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/internal/format"
)

// Moving inline values out ahead of time. A manifest's inline values are
// moved to their version objects (spill) when they pass the budget or the
// overlay is folded into shards, by the commit that writes that manifest,
// before its write: in a domain that many goroutines write, that commit
// is a merged write that every waiting commit waits for, and moving 256
// values of 1 KiB held each fold for about 270 ms on the local MinIO. So
// after a merged write whose manifest is on its way to a spill, the Store
// writes the version objects of the values that spill will move, in the
// background, and the spill then finds them written.
//
// It is safe for the reason a commit's own spill may skip a value it
// wrote before a lost race: an inline entry names its version object, the
// collector keeps every object a manifest names, and a manifest that
// still holds the entry has named it since its commit landed, so an
// object written for it is still there when a spill finds the entry in
// the manifest it builds on. An object written for a value that a later
// commit replaced is an unnamed object of a landed attempt, which the
// collector deletes after its grace period.

// prespilled remembers the version objects written ahead of a spill.
type prespilled struct {
	mu      sync.Mutex
	written map[string]bool
	// running holds, for each domain with a pre-spill under way, a
	// channel closed when it ends.
	running map[string]chan struct{}
}

// maxPrespilled bounds prespilled.written; past it, it starts afresh (a
// forgotten object is only written again, and found to be there).
const maxPrespilled = 1 << 16

func (p *prespilled) has(version string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.written[version]
}

func (p *prespilled) add(version string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.written == nil || len(p.written) >= maxPrespilled {
		p.written = make(map[string]bool)
	}
	p.written[version] = true
}

// start marks domain's pre-spill as running; false if one already is.
func (p *prespilled) start(domain string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running[domain] != nil {
		return false
	}
	if p.running == nil {
		p.running = make(map[string]chan struct{})
	}
	p.running[domain] = make(chan struct{})
	return true
}

// wait waits until domain's pre-spill, if one runs, has ended, or ctx
// has.
func (p *prespilled) wait(ctx context.Context, domain string) {
	p.mu.Lock()
	ch := p.running[domain]
	p.mu.Unlock()
	if ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
		}
	}
}

// busy reports whether a pre-spill of domain is under way.
func (p *prespilled) busy(domain string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running[domain] != nil
}

func (p *prespilled) stop(domain string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.running[domain])
	delete(p.running, domain)
}

// prespill starts writing, in the background, the version objects of
// the inline values of m, a manifest this Store just wrote in a merged
// write, oldest first; the next manifest built moves every value whose
// object is written out of the manifest (takeWritten), so that the
// manifest that every merged write rewrites stays small. It returns at
// once, and does nothing while the domain's last pre-spill still runs.
func (s *Store) prespill(ctx context.Context, m *format.Manifest) {
	if !m.HasInline() {
		return
	}
	all := inlineOldestFirst(m)
	todo := all[:0]
	for _, x := range all {
		if !s.pre.has(x.e.Version) {
			todo = append(todo, x)
		}
	}
	if len(todo) == 0 || !s.pre.start(m.Domain) {
		return
	}
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer s.pre.stop(m.Domain)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(s.opts.UploadParallelism)
		for _, x := range todo {
			g.Go(func() error {
				if err := s.writeSpilled(gctx, x.key, x.e); err != nil {
					// The spill that needs it writes it, or fails.
					s.opts.Logger.Debug("objstore: writing an inline value ahead of its spill", "domain", m.Domain, "key", x.key, "err", err)
					return err
				}
				s.pre.add(x.e.Version)
				return nil
			})
		}
		_ = g.Wait()
	}()
}

// takeWritten moves out of next, a manifest this Store is building, every
// inline value whose version object prespill has written: a spill that
// costs no request.
func (s *Store) takeWritten(next *format.Manifest) {
	if !next.HasInline() {
		return
	}
	s.pre.mu.Lock()
	defer s.pre.mu.Unlock()
	if len(s.pre.written) == 0 {
		return
	}
	for k, e := range next.Keys {
		if e.Inline && s.pre.written[e.Version] {
			e = withCRCs(e)
			e.Inline, e.Data = false, nil
			next.Keys[k] = e
		}
	}
}

// canWait reports whether next, a manifest a merged write is about to
// carry, may go without the spill or the fold it is due for, so that its
// commits do not wait for objects a pre-spill of its domain is writing
// right now: up to a quarter past the overlay's bound, and twice the
// inline budget. The bounds keep a manifest small (every merged write
// rewrites it, and its size is most of what a write costs), so the slack
// is small; no reader depends on them.
func (s *Store) canWait(next *format.Manifest) bool {
	return s.pre.busy(next.Domain) && len(next.Keys) <= format.OverlayLimit+format.OverlayLimit/4 && next.InlineBytes() <= 2*s.opts.InlineBudget
}
