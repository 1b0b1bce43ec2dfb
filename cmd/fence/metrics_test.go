package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// exec --metrics-push pushes the run's metrics to a Pushgateway when it
// ends, grouped by job and domain, in the exposition format.
func TestExecMetricsPush(t *testing.T) {
	var (
		mu     sync.Mutex
		paths  []string
		bodies []string
	)
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths, bodies = append(paths, r.Method+" "+r.URL.Path), append(bodies, string(b))
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer gw.Close()
	c := newCLI(t)
	c.want(0, "", "exec", "reports/daily", "--metrics-push", gw.URL, "--", "true")
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 1 || !strings.HasPrefix(paths[0], "PUT /metrics/job/fence_exec/domain@base64/") {
		t.Fatalf("pushes = %v; want one PUT to /metrics/job/fence_exec/domain@base64/...", paths)
	}
	fams, err := new(expfmt.TextParser).TextToMetricFamilies(strings.NewReader(bodies[0]))
	if err != nil {
		// The push client sends the protobuf format by default.
		fams, err = parseDelimited(bodies[0])
	}
	if err != nil {
		t.Fatalf("the pushed body is not in an exposition format: %v", err)
	}
	for _, want := range []struct{ name, label, value string }{
		{"fence_lease_events_total", "event", "acquired"},
		{"fence_lease_events_total", "event", "released"},
		{"fence_commits_total", "outcome", "accepted"},
	} {
		found := false
		for _, m := range fams[want.name].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == want.label && l.GetValue() == want.value && m.GetCounter().GetValue() >= 1 {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("the push has no %s{%s=%q} of at least 1", want.name, want.label, want.value)
		}
	}
	// A push that fails is reported; the run's outcome stands.
	gw.Close()
	r := c.want(0, "", "exec", "reports/daily", "--metrics-push", gw.URL, "--", "true")
	if !strings.Contains(r.stderr, "pushing metrics to") {
		t.Errorf("a failed push was not reported: %q", r.stderr)
	}
}

// parseDelimited reads length-delimited protobuf metric families, the
// push client's default format.
func parseDelimited(body string) (map[string]*dto.MetricFamily, error) {
	out := map[string]*dto.MetricFamily{}
	dec := expfmt.NewDecoder(strings.NewReader(body), expfmt.NewFormat(expfmt.TypeProtoDelim))
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		out[mf.GetName()] = &mf
	}
}
