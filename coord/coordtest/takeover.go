package coordtest

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// The takeover cases run fence.Acquire, the sequence holders follow,
// against the coordinator under test and a store in memory.

// WipeAfterAcquire returns d, except that right after the first
// acquisition it grants, it calls wipe (which deletes the domain's lease
// record behind d's back) and then then: another holder's takeover
// squeezed between an acquisition and its fence. If wipe fails, that
// acquisition fails with its error.
func WipeAfterAcquire(d coord.Driver, wipe func() error, then func()) coord.Driver {
	return &wipeAfterAcquire{Driver: d, wipe: wipe, then: then}
}

type wipeAfterAcquire struct {
	coord.Driver
	wipe func() error
	then func()
	mu   sync.Mutex
	done bool
}

func (w *wipeAfterAcquire) TryAcquire(ctx context.Context, r coord.Request) (coord.Lease, error) {
	l, err := w.Driver.TryAcquire(ctx, r)
	w.mu.Lock()
	first := err == nil && !w.done
	w.done = w.done || first
	w.mu.Unlock()
	if first {
		if werr := w.wipe(); werr != nil {
			return coord.Lease{}, werr
		}
		w.then()
	}
	return l, err
}

// takeoverWipedMidway: the record is wiped between A's acquisition and
// A's fence, so B acquires from the same floor and gets A's token. Only one
// of them gets in.
func (s *suite) takeoverWipedMidway() {
	if s.opts.Wipe == nil {
		s.t.Skip("coordtest: Options.Wipe not set")
	}
	d := s.domain("d")
	mem := memstore.New()
	store := objstore.New(mem, nil)
	old := s.acquire(d, "old", 0)
	if _, err := store.Fence(s.ctx(), d, old.Token); err != nil {
		s.t.Fatal(err)
	}
	s.mustRelease(old)
	var b coord.Lease
	w := s.coordinator(WipeAfterAcquire(s.d, func() error { s.opts.Wipe(s.t, s.d, d); return nil }, func() {
		var err error
		b, err = takeover(s.ctx(), objstore.New(mem, nil), s.c, d, &fence.AcquireOptions{Holder: "B", TTL: ttl, Clock: s.clk})
		if err != nil {
			s.t.Errorf("B's takeover after the wipe: %v", err)
		}
	}))
	a, err := takeover(s.ctx(), store, w, d, &fence.AcquireOptions{Holder: "A", TTL: ttl, Clock: s.clk})
	// A reads the store's highest token while it acquires, so it either
	// read it before B's fence, and its own fence at the token B also
	// got is refused as claimed; or after, and found its token already
	// reached, and B's lease in the way when it took the lease again.
	var fe *objstore.FencedError
	switch {
	case errors.As(err, &fe) && fe.ClaimedBy != "":
		if b.Token != fe.Token {
			s.t.Fatalf("B got token %d and A %d: the wipe did not make the coordinator issue one token twice", b.Token, fe.Token)
		}
	case errors.Is(err, coord.ErrLeaseHeld):
	default:
		s.t.Fatalf("A's takeover, whose token B took after the wipe: %+v, %v; want refused as claimed, or held by B", a, err)
	}
	s.wantHeldBy(b)
	if _, err := store.Put(s.ctx(), d, "k", b.Token, strings.NewReader("B"), -1); err != nil {
		s.t.Fatalf("B's put: %v", err)
	}
}

// issuerOnlyNewest: a store asking this coordinator (fence.Issuer) lets
// only the token it issued last raise a domain; others are refused with
// nothing written.
func (s *suite) issuerOnlyNewest() {
	d := s.domain("d")
	mem := memstore.New()
	store := objstore.New(mem, &objstore.Options{Issuer: fence.Issuer(s.c)})
	if _, err := store.Fence(s.ctx(), d, 1); !errors.Is(err, objstore.ErrInvalid) {
		s.t.Fatalf("fence before any acquisition: %v, want refused", err)
	}
	a, err := takeover(s.ctx(), store, s.c, d, &fence.AcquireOptions{Holder: "A", TTL: ttl, Clock: s.clk, NoFence: true})
	if err != nil {
		s.t.Fatal(err)
	}
	s.mustRelease(a)
	b := s.acquire(d, "B", 0)
	if _, err := store.Put(s.ctx(), d, "k", a.Token, strings.NewReader("late A"), -1); !errors.Is(err, objstore.ErrFenced) {
		s.t.Fatalf("A's put after B acquired (A never fenced): %v, want fenced", err)
	}
	for _, tok := range []uint64{b.Token + 1, objstore.MaxToken} {
		if _, err := store.Put(s.ctx(), d, "k", tok, strings.NewReader("typo"), -1); !errors.Is(err, objstore.ErrInvalid) {
			s.t.Fatalf("put with token %d, never issued: %v, want refused", tok, err)
		}
	}
	// A's refused put leaves its fenced-attempt record, a diagnostic no
	// commit reads (objstore.Store.FencedAttempts); nothing else.
	if keys := mem.Keys(); len(keys) != 1 || !strings.Contains(keys[0], "/_fence/fenced/") {
		s.t.Fatalf("refused writes wrote %v; want A's fenced-attempt record only", keys)
	}
	if _, err := store.Put(s.ctx(), d, "k", b.Token, strings.NewReader("B"), -1); err != nil {
		s.t.Fatalf("B's put: %v", err)
	}
}

// takeover runs fence.Acquire and orphans its session at once: these
// cases drive the lease by hand, on a fake clock.
func takeover(ctx context.Context, store *objstore.Store, c *coord.Coordinator, domain string, opts *fence.AcquireOptions) (coord.Lease, error) {
	sess, err := fence.Acquire(ctx, store, c, domain, opts)
	if err != nil {
		return coord.Lease{}, err
	}
	return sess.Orphan(), nil
}
