package coord_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/coordtest"
	"github.com/fencedstore/fence/objstore"
)

// memCoord is a minimal in-memory coordinator: the reference the
// conformance suite is checked against, and the base of the session tests.
type memCoord struct {
	clk  coord.Clock
	mu   sync.Mutex
	recs map[string]coord.State
}

func newMemCoord(clk coord.Clock) *memCoord {
	return &memCoord{clk: clk, recs: make(map[string]coord.State)}
}

func (m *memCoord) TryAcquire(ctx context.Context, req coord.Request) (coord.Lease, error) {
	if err := coord.ValidateRequest(req); err != nil {
		return coord.Lease{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clk.Now()
	st := m.recs[req.Domain]
	if st.Holder != "" && st.Holder != req.Holder && now.Before(st.Expires) {
		return coord.Lease{}, &coord.HeldError{Domain: req.Domain, Holder: st.Holder, Token: st.Token, Expires: st.Expires}
	}
	base := max(st.Token, req.Floor)
	if base >= objstore.MaxToken {
		return coord.Lease{}, fmt.Errorf("memcoord: %q: no token above %d", req.Domain, base)
	}
	st = coord.State{Domain: req.Domain, Holder: req.Holder, Token: base + 1, Expires: now.Add(req.TTL)}
	m.recs[req.Domain] = st
	return coord.Lease{Domain: st.Domain, Holder: st.Holder, Token: st.Token, Expires: st.Expires}, nil
}

func (m *memCoord) Renew(ctx context.Context, l coord.Lease, ttl time.Duration) (coord.Lease, error) {
	if err := coord.ValidateLease(l); err != nil {
		return coord.Lease{}, err
	}
	if err := coord.ValidateTTL(ttl); err != nil {
		return coord.Lease{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clk.Now()
	st := m.recs[l.Domain]
	if st.Holder != l.Holder || st.Token != l.Token || !now.Before(st.Expires) {
		return coord.Lease{}, fmt.Errorf("memcoord: %w: record is %+v", coord.ErrLeaseLost, st)
	}
	st.Expires = now.Add(ttl)
	m.recs[l.Domain] = st
	l.Expires = st.Expires
	return l, nil
}

func (m *memCoord) Release(ctx context.Context, l coord.Lease) error {
	if err := coord.ValidateLease(l); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.recs[l.Domain]
	if st.Holder != l.Holder || st.Token != l.Token {
		return fmt.Errorf("memcoord: %w: record is %+v", coord.ErrLeaseLost, st)
	}
	st.Holder, st.Expires = "", time.Time{}
	m.recs[l.Domain] = st
	return nil
}

func (m *memCoord) State(ctx context.Context, domain string) (coord.State, error) {
	if err := coord.ValidateDomain(domain); err != nil {
		return coord.State{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.recs[domain]
	st.Domain = domain
	return st, nil
}

func TestSuiteOnMemCoord(t *testing.T) {
	coordtest.Run(t, func(t *testing.T, clk coord.Clock) coord.Coordinator {
		return newMemCoord(clk)
	}, &coordtest.Options{Wipe: func(t *testing.T, c coord.Coordinator, domain string) {
		m := c.(*memCoord)
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(m.recs, domain)
	}})
}
