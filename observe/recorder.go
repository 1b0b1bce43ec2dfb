package observe

import (
	"context"
	"sync"
)

// Recorder is an Observer that keeps every event, for tests.
type Recorder struct {
	mu       sync.Mutex
	commits  []Commit
	leases   []Lease
	collects []Collect
	calls    []Call
}

func (r *Recorder) Commit(_ context.Context, e Commit) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.commits = append(r.commits, e)
}

func (r *Recorder) Lease(_ context.Context, e Lease) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leases = append(r.leases, e)
}

func (r *Recorder) Collect(_ context.Context, e Collect) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.collects = append(r.collects, e)
}

func (r *Recorder) Call(_ context.Context, e Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, e)
}

// Commits returns the commits recorded so far, in order.
func (r *Recorder) Commits() []Commit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Commit(nil), r.commits...)
}

// Leases returns the lease events recorded so far, in order.
func (r *Recorder) Leases() []Lease {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Lease(nil), r.leases...)
}

// Collects returns the collections recorded so far, in order.
func (r *Recorder) Collects() []Collect {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Collect(nil), r.collects...)
}

// Calls returns the calls recorded so far, in order.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}
