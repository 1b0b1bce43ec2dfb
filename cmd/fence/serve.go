package main

import (
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/observe/promobs"
	"github.com/fencedstore/fence/serve"
)

// envServeToken is the token fence serve requires, when set.
const envServeToken = "FENCE_SERVE_TOKEN"

func (a *app) serveCmd() *cobra.Command {
	var (
		addr        string
		allowRemote bool
		pageSize    int
		reqTimeout  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a read-only status page and JSON API of the store's domains",
		Long: `serve serves, over HTTP, a read-only view of the store's domains: each
domain's holder, token, lease state and time left, last commit and marks
for a fenced last attempt or a lease expired but not released; one
domain's lease, keys, history, fenced attempts and a timeline of token
against time; and one commit. Every page is also JSON at the same path
with Accept: application/json or ?format=json. /metrics serves the
Prometheus metrics of its calls and of the fenced attempts on record
(fence_fenced_attempts_recorded and the newest one's tokens and time,
from a listing of the store at most every 30s), /healthz answers "ok".

It only reads (the reader role of 'fence policy' is enough): it takes no
lease and writes nothing. It listens on loopback; another address needs
--allow-remote. When ` + envServeToken + ` is set, every page but
/healthz requires it, as a bearer token or a basic-auth password.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			warning, err := serve.CheckAddr(addr, allowRemote)
			if err != nil {
				return usage("serve: --addr: %v", err)
			}
			reg := prometheus.NewRegistry()
			reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			obs, err := promobs.New(reg)
			if err != nil {
				return fail(err)
			}
			a.metrics = obs
			store, c, closeAll, err := a.open(cmd, coordReads)
			if err != nil {
				return err
			}
			defer closeAll()
			reg.MustRegister(serve.FencedCollector(store.Backend(), &serve.Options{Timeout: reqTimeout}, 0))
			h := serve.New(store, c, &serve.Options{PageSize: pageSize, Timeout: reqTimeout, Token: a.getenv(envServeToken),
				Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}),
				Store:   config.Redact(a.resolve(cmd, "store", envStore)), Coordinator: config.Redact(a.resolve(cmd, "coord", envCoord))}).Handler()
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			ln, err := serve.Listen(ctx, addr)
			if err != nil {
				return fail(fmt.Errorf("serve: %w", err))
			}
			if warning != "" {
				fmt.Fprintln(a.stderr, "fence: serve: "+warning)
			}
			fmt.Fprintf(a.stderr, "fence: serve: http://%s/\n", ln.Addr())
			if err := serve.Serve(ctx, ln, h); err != nil {
				return fail(fmt.Errorf("serve: %w", err))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT`; loopback unless --allow-remote")
	f.BoolVar(&allowRemote, "allow-remote", false, "allow an --addr reachable from other machines (set "+envServeToken+" too)")
	f.IntVar(&pageSize, "page-size", 50, "domains and keys per page (at most 500)")
	f.DurationVar(&reqTimeout, "request-timeout", 20*time.Second, "give up on one page after this `duration`")
	return cmd
}
