package observe

import (
	"context"
	"time"
)

// Observer receives fence's events. Embed Nop to implement only some.
type Observer interface {
	Commit(ctx context.Context, e Commit)
	Lease(ctx context.Context, e Lease)
	Collect(ctx context.Context, e Collect)
	Call(ctx context.Context, e Call)
}

// Nop is an Observer that ignores everything.
type Nop struct{}

func (Nop) Commit(context.Context, Commit)   {}
func (Nop) Lease(context.Context, Lease)     {}
func (Nop) Collect(context.Context, Collect) {}
func (Nop) Call(context.Context, Call)       {}

// Multi returns an Observer that passes every event to each of obs in
// order; nil entries are skipped. With none it is Nop.
func Multi(obs ...Observer) Observer {
	var m multi
	for _, o := range obs {
		if o != nil {
			m = append(m, o)
		}
	}
	switch len(m) {
	case 0:
		return Nop{}
	case 1:
		return m[0]
	}
	return m
}

type multi []Observer

func (m multi) Commit(ctx context.Context, e Commit) {
	for _, o := range m {
		o.Commit(ctx, e)
	}
}

func (m multi) Lease(ctx context.Context, e Lease) {
	for _, o := range m {
		o.Lease(ctx, e)
	}
}

func (m multi) Collect(ctx context.Context, e Collect) {
	for _, o := range m {
		o.Collect(ctx, e)
	}
}

func (m multi) Call(ctx context.Context, e Call) {
	for _, o := range m {
		o.Call(ctx, e)
	}
}

type deadlineKey struct{}

// WithLeaseDeadline returns ctx carrying the time by which the caller's
// lease must be renewed or given up (coord.Session.Deadline), so that a
// commit under ctx reports how much of it was left (Commit.LeaseRemaining).
func WithLeaseDeadline(ctx context.Context, deadline time.Time) context.Context {
	return context.WithValue(ctx, deadlineKey{}, deadline)
}

// LeaseDeadline returns the deadline WithLeaseDeadline put in ctx.
func LeaseDeadline(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(deadlineKey{}).(time.Time)
	return t, ok
}
