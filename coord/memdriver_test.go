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

// memDriver is a minimal in-memory driver: the reference the conformance
// suite is checked against, and the base of the session tests. Like every
// driver it trusts its input: coord.Coordinator checks it.
type memDriver struct {
	clk  coord.Clock
	mu   sync.Mutex
	recs map[string]coord.State
}

func newMemDriver(clk coord.Clock) *memDriver {
	return &memDriver{clk: clk, recs: make(map[string]coord.State)}
}

func (m *memDriver) TryAcquire(ctx context.Context, req coord.Request) (coord.Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clk.Now()
	st := m.recs[req.Domain]
	if !req.Force && st.Holder != "" && st.Holder != req.Holder && now.Before(st.Expires) {
		return coord.Lease{}, &coord.HeldError{Domain: req.Domain, Holder: st.Holder, Token: st.Token, Expires: st.Expires}
	}
	base := max(st.Token, req.Floor)
	if base >= objstore.MaxToken {
		return coord.Lease{}, fmt.Errorf("memdriver: %q: no token above %d", req.Domain, base)
	}
	st = coord.State{Domain: req.Domain, Holder: req.Holder, Token: base + 1, Expires: now.Add(req.TTL)}
	m.recs[req.Domain] = st
	return coord.Lease{Domain: st.Domain, Holder: st.Holder, Token: st.Token, Expires: st.Expires}, nil
}

func (m *memDriver) Renew(ctx context.Context, l coord.Lease, ttl time.Duration) (coord.Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clk.Now()
	st := m.recs[l.Domain]
	if st.Holder != l.Holder || st.Token != l.Token || !now.Before(st.Expires) {
		return coord.Lease{}, fmt.Errorf("memdriver: %w: record is %+v", coord.ErrLeaseLost, st)
	}
	st.Expires = now.Add(ttl)
	m.recs[l.Domain] = st
	l.Expires = st.Expires
	return l, nil
}

func (m *memDriver) Release(ctx context.Context, l coord.Lease) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.recs[l.Domain]
	if st.Holder != l.Holder || st.Token != l.Token {
		return fmt.Errorf("memdriver: %w: record is %+v", coord.ErrLeaseLost, st)
	}
	st.Holder, st.Expires = "", time.Time{}
	m.recs[l.Domain] = st
	return nil
}

func (m *memDriver) State(ctx context.Context, domain string) (coord.State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.recs[domain]
	st.Domain = domain
	return st, nil
}

func TestSuiteOnMemDriver(t *testing.T) {
	coordtest.Run(t, func(t *testing.T, clk coord.Clock) coord.Driver {
		return newMemDriver(clk)
	}, &coordtest.Options{Wipe: func(t *testing.T, d coord.Driver, domain string) {
		m := d.(*memDriver)
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(m.recs, domain)
	}})
}
