// Package promobs turns fence's events (package observe) into Prometheus
// metrics:
//
//	fence_commits_total{outcome}              commits by outcome: accepted, fenced, unknown, failed
//	fence_commit_fences_total                 accepted commits that only raised the token (takeovers)
//	fence_commit_ambiguous_total{result}      commits whose outcome was in doubt: settled, unsettled
//	fence_commit_duration_seconds             commit latency
//	fence_lease_remaining_seconds             a holder's lease time left when its commit started
//	fence_lease_events_total{event}           acquired, held, renewed, released, lost, failed
//	fence_calls_total{system,op,result}       calls to the store and coordinator: ok, error
//	fence_call_duration_seconds{system,op}    their latency
//	fence_gc_runs_total{result}               collections: ok, error
//	fence_gc_deleted_objects_total            objects collections deleted
//	fence_gc_deleted_bytes_total              their bytes
//
// No metric has a domain, holder or key label: their number is the
// user's, and a label per value would grow without bound.
package promobs

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fencedstore/fence/observe"
)

// Observer is an observe.Observer that updates the metrics above.
type Observer struct {
	commits       *prometheus.CounterVec
	fences        prometheus.Counter
	ambiguous     *prometheus.CounterVec
	commitSeconds prometheus.Histogram
	remaining     prometheus.Histogram
	leases        *prometheus.CounterVec
	calls         *prometheus.CounterVec
	callSeconds   *prometheus.HistogramVec
	gcRuns        *prometheus.CounterVec
	gcObjects     prometheus.Counter
	gcBytes       prometheus.Counter
}

var _ observe.Observer = (*Observer)(nil)

// latency buckets, in seconds: 1 ms to about 16 s.
var latency = prometheus.ExponentialBuckets(0.001, 2, 15)

// New returns an Observer whose metrics are registered on reg, or the
// registration's error (for example when reg has them already).
func New(reg prometheus.Registerer) (*Observer, error) {
	o := &Observer{
		commits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fence_commits_total", Help: "Fenced commits by outcome: accepted, fenced (a newer token is in force; nothing written), unknown (may have landed; retry with the commit id), failed.",
		}, []string{"outcome"}),
		fences: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fence_commit_fences_total", Help: "Accepted commits without changes that raised a domain's highest token (takeovers, fence calls).",
		}),
		ambiguous: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fence_commit_ambiguous_total", Help: "Commits whose outcome was in doubt (a lost reply, a 5xx, a retry): settled by reading the manifest back, or unsettled.",
		}, []string{"result"}),
		commitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "fence_commit_duration_seconds", Help: "Latency of fenced commits, whatever their outcome.", Buckets: latency,
		}),
		remaining: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "fence_lease_remaining_seconds", Help: "Time a holder's lease had left, by its own clock, when one of its commits started.",
			Buckets: []float64{0.5, 1, 2, 5, 10, 15, 20, 30, 45, 60, 120, 300, 600},
		}),
		leases: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fence_lease_events_total", Help: "Lease events: acquired, held (another holder's lease is live), renewed, released, lost, failed (the coordinator did not answer).",
		}, []string{"event"}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fence_calls_total", Help: "Calls to the store's backend and the coordinator, by result (ok, error).",
		}, []string{"system", "op", "result"}),
		callSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "fence_call_duration_seconds", Help: "Latency of calls to the store's backend and the coordinator.", Buckets: latency,
		}, []string{"system", "op"}),
		gcRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fence_gc_runs_total", Help: "Collections (fence gc) by result: ok, error.",
		}, []string{"result"}),
		gcObjects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fence_gc_deleted_objects_total", Help: "Version and shard objects collections deleted.",
		}),
		gcBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fence_gc_deleted_bytes_total", Help: "Bytes of the objects collections deleted.",
		}),
	}
	for _, c := range []prometheus.Collector{o.commits, o.fences, o.ambiguous, o.commitSeconds, o.remaining, o.leases, o.calls, o.callSeconds, o.gcRuns, o.gcObjects, o.gcBytes} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	// Every outcome and event from the start, so that a rate over them
	// needs no first occurrence.
	for _, oc := range []observe.Outcome{observe.Accepted, observe.Fenced, observe.Unknown, observe.Failed} {
		o.commits.WithLabelValues(string(oc))
	}
	for _, r := range []string{"settled", "unsettled"} {
		o.ambiguous.WithLabelValues(r)
	}
	for _, ev := range []observe.LeaseEvent{observe.Acquired, observe.Held, observe.Renewed, observe.Released, observe.Lost, observe.CallFailed} {
		o.leases.WithLabelValues(string(ev))
	}
	return o, nil
}

func (o *Observer) Commit(_ context.Context, e observe.Commit) {
	o.commits.WithLabelValues(string(e.Outcome)).Inc()
	if e.Outcome == observe.Accepted && e.Fence {
		o.fences.Inc()
	}
	switch {
	case e.Outcome == observe.Unknown:
		o.ambiguous.WithLabelValues("unsettled").Inc()
	case e.Settled:
		o.ambiguous.WithLabelValues("settled").Inc()
	}
	o.commitSeconds.Observe(e.Duration.Seconds())
	if e.LeaseRemaining != 0 {
		o.remaining.Observe(max(e.LeaseRemaining.Seconds(), 0))
	}
}

func (o *Observer) Lease(_ context.Context, e observe.Lease) {
	o.leases.WithLabelValues(string(e.Event)).Inc()
}

func (o *Observer) Collect(_ context.Context, e observe.Collect) {
	if e.Err != nil {
		o.gcRuns.WithLabelValues("error").Inc()
	} else {
		o.gcRuns.WithLabelValues("ok").Inc()
	}
	o.gcObjects.Add(float64(e.Deleted))
	o.gcBytes.Add(float64(e.DeletedBytes))
}

func (o *Observer) Call(_ context.Context, e observe.Call) {
	result := "ok"
	if e.Err != nil {
		result = "error"
	}
	o.calls.WithLabelValues(string(e.System), e.Op, result).Inc()
	o.callSeconds.WithLabelValues(string(e.System), e.Op).Observe(e.Duration.Seconds())
}
