package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/push"

	"github.com/fencedstore/fence/observe/promobs"
)

// metricsFlags are fence exec's metrics flags.
type metricsFlags struct {
	addr   string
	push   string
	linger time.Duration
}

// metrics serves or pushes the Prometheus metrics of one fence exec run.
type metrics struct {
	reg    *prometheus.Registry
	srv    *http.Server
	served chan error
	flags  metricsFlags
	domain string
}

// startMetrics registers fence's metrics (package promobs), with the Go
// runtime's and the process's, on a registry of their own, and serves
// them on /metrics at f.addr. It returns nil when no metrics flag is set.
func (a *app) startMetrics(domain string, f metricsFlags) (*metrics, error) {
	if f.addr == "" && f.push == "" {
		return nil, nil
	}
	if f.push != "" {
		if u, err := url.Parse(f.push); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usage("exec: --metrics-push: want the http:// or https:// URL of a Prometheus Pushgateway")
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	obs, err := promobs.New(reg)
	if err != nil {
		return nil, fail(err)
	}
	a.metrics = obs
	m := &metrics{reg: reg, flags: f, domain: domain}
	if f.addr == "" {
		return m, nil
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return nil, fail(fmt.Errorf("exec: --metrics-addr %s: %w", f.addr, err))
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	m.served = make(chan error, 1)
	go func() { m.served <- m.srv.Serve(ln) }()
	if !a.quiet {
		a.notice(slog.LevelInfo, "exec: metrics on http://%s/metrics", ln.Addr())
	}
	return m, nil
}

// finish pushes the metrics to the Pushgateway, if one was given (a
// failed push is reported, not fatal: the run's outcome stands), keeps
// serving them for --metrics-linger unless a signal comes first, and
// stops the server.
func (m *metrics) finish(ctx context.Context, a *app, sigs <-chan os.Signal) {
	if m == nil {
		return
	}
	if m.flags.push != "" {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err := push.New(m.flags.push, "fence_exec").Grouping("domain", m.domain).Gatherer(m.reg).PushContext(pctx)
		cancel()
		if err != nil {
			a.notice(slog.LevelWarn, "exec: pushing metrics to %s: %v", redactURL(m.flags.push), err)
		}
	}
	if m.srv == nil {
		return
	}
	if m.flags.linger > 0 {
		t := time.NewTimer(m.flags.linger)
		select {
		case <-t.C:
		case <-sigs:
		}
		t.Stop()
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = m.srv.Shutdown(sctx)
	if err := <-m.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		a.notice(slog.LevelWarn, "exec: metrics server: %v", err)
	}
}

// redactURL returns raw with any password replaced by "xxxxx".
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}
