package promobs_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	"github.com/fencedstore/fence/observe"
	"github.com/fencedstore/fence/observe/promobs"
)

// TestMetrics feeds one event of each kind and reads the metrics back
// from the exposition format a scrape returns.
func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	o, err := promobs.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := promobs.New(reg); err == nil {
		t.Fatal("registering twice on one registry succeeded")
	}
	ctx := context.Background()
	o.Commit(ctx, observe.Commit{Outcome: observe.Accepted, Duration: time.Millisecond, LeaseRemaining: 20 * time.Second})
	o.Commit(ctx, observe.Commit{Outcome: observe.Accepted, Fence: true})
	o.Commit(ctx, observe.Commit{Outcome: observe.Fenced, Err: errors.New("fenced")})
	o.Commit(ctx, observe.Commit{Outcome: observe.Fenced, Err: errors.New("fenced")})
	o.Commit(ctx, observe.Commit{Outcome: observe.Unknown})
	o.Commit(ctx, observe.Commit{Outcome: observe.Accepted, Settled: true, Retry: true})
	o.Lease(ctx, observe.Lease{Event: observe.Acquired})
	o.Lease(ctx, observe.Lease{Event: observe.Lost})
	o.Collect(ctx, observe.Collect{Deleted: 3, DeletedBytes: 300})
	o.Call(ctx, observe.Call{System: observe.Store, Op: "put", Duration: 5 * time.Millisecond})
	o.Call(ctx, observe.Call{System: observe.Coordinator, Op: "renew", Err: errors.New("timeout")})

	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p expfmt.TextParser
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the scrape is not in the exposition format: %v", err)
	}
	value := func(name string, labels ...string) float64 {
		t.Helper()
		f, ok := families[name]
		if !ok {
			t.Fatalf("no metric %s", name)
		}
	next:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for i := 0; i < len(labels); i += 2 {
				if have[labels[i]] != labels[i+1] {
					continue next
				}
			}
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
		t.Fatalf("no %s with labels %v", name, labels)
		return 0
	}
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"fence_commits_total", []string{"outcome", "accepted"}, 3},
		{"fence_commits_total", []string{"outcome", "fenced"}, 2},
		{"fence_commits_total", []string{"outcome", "unknown"}, 1},
		{"fence_commits_total", []string{"outcome", "failed"}, 0},
		{"fence_commit_fences_total", nil, 1},
		{"fence_commit_ambiguous_total", []string{"result", "settled"}, 1},
		{"fence_commit_ambiguous_total", []string{"result", "unsettled"}, 1},
		{"fence_commit_duration_seconds", nil, 6},
		{"fence_lease_remaining_seconds", nil, 1},
		{"fence_lease_events_total", []string{"event", "acquired"}, 1},
		{"fence_lease_events_total", []string{"event", "lost"}, 1},
		{"fence_lease_events_total", []string{"event", "renewed"}, 0},
		{"fence_gc_runs_total", []string{"result", "ok"}, 1},
		{"fence_gc_deleted_objects_total", nil, 3},
		{"fence_gc_deleted_bytes_total", nil, 300},
		{"fence_calls_total", []string{"system", "store", "op", "put", "result", "ok"}, 1},
		{"fence_calls_total", []string{"system", "coordinator", "op", "renew", "result", "error"}, 1},
		{"fence_call_duration_seconds", []string{"system", "store", "op", "put"}, 1},
	} {
		if got := value(c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %g, want %g", c.name, c.labels, got, c.want)
		}
	}
	for name := range families {
		if !strings.HasPrefix(name, "fence_") {
			t.Errorf("metric %s is not fence's", name)
		}
	}
}
