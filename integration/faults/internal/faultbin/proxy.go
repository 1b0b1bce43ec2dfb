package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"

	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/objstore/driver"
)

// runProxy starts an embedded toxiproxy with one proxy per route, an HTTP
// fault layer in front of the routes that ask for one, and toxiproxy's
// HTTP API, prints a spec.ProxyReady line and serves until SIGTERM.
func runProxy(cfg spec.Proxy) error {
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	ready := spec.ProxyReady{Listen: map[string]string{}, HTTP: map[string]string{}}
	var wire *wireRecord
	if cfg.Record != "" {
		var err error
		if wire, err = openWireRecord(cfg.Record); err != nil {
			return err
		}
	}
	for i, r := range cfg.Routes {
		p := toxiproxy.NewProxy(srv, r.Name, "127.0.0.1:0", r.Upstream)
		if err := srv.Collection.Add(p, true); err != nil {
			return fmt.Errorf("route %s: %w", r.Name, err)
		}
		ready.Listen[r.Name] = p.Listen
		if !r.HTTP {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		h := &httpFaults{route: r.Name, upstream: p.Listen, direct: r.Upstream, upstreamHost: r.UpstreamHost, rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i))), buckets: map[string]driver.Backend{}}
		if r.Record {
			if wire == nil {
				return fmt.Errorf("route %s: Record needs the proxy's Record file", r.Name)
			}
			h.wire = wire
		}
		h.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		go http.Serve(ln, h)
		ready.HTTP[r.Name] = ln.Addr().String()
		ready.Listen[r.Name] = ln.Addr().String()
	}
	api, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(api, srv.Routes())
	ready.API = api.Addr().String()
	line, _ := json.Marshal(ready)
	fmt.Println(string(line))

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	return nil
}

// httpFaults is a reverse proxy that answers some requests with S3 error
// replies: 503 SlowDown or 500 InternalError without forwarding them, or
// 503 SlowDown after forwarding a PUT and letting it apply. Its
// configuration is set and its counters read at /_faults (no bucket name
// starts with "_").
type httpFaults struct {
	route    string
	upstream string
	direct   string // the server itself, host:port, bypassing toxiproxy
	client   *http.Client
	wire     *wireRecord // nil unless the route is recorded
	// upstreamHost: send direct as the Host header (spec.Route.UpstreamHost).
	upstreamHost bool

	mu      sync.Mutex
	cfg     spec.HTTPFaults
	rng     *rand.Rand
	buckets map[string]driver.Backend // clients of the server, per bucket, to overwrite forgotten objects
	stats   struct{ requests, r503, r500, a503, fRead, fIfMatch, overwrote atomic.Int64 }
}

const s3Error = `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>%s</Code><Message>%s (injected by the fault proxy)</Message><Resource>%s</Resource><RequestId>fault</RequestId></Error>`

func (h *httpFaults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/_faults" {
		h.control(w, r)
		return
	}
	h.stats.requests.Add(1)
	h.mu.Lock()
	cfg := h.cfg
	x := h.rng.Float64()
	h.mu.Unlock()
	if bucket, key, ok := h.forgotten(r, cfg.Forget); ok {
		switch {
		case r.Method == http.MethodGet || r.Method == http.MethodHead:
			h.stats.fRead.Add(1)
			reply(w, r, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
			return
		case r.Method == http.MethodPut && r.Header.Get("If-Match") != "":
			// MinIO answers If-Match on a key it does not have with 404.
			h.stats.fIfMatch.Add(1)
			io.Copy(io.Discard, r.Body)
			reply(w, r, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
			return
		case r.Method == http.MethodPut && r.Header.Get("If-None-Match") == "*":
			// The object is missing as far as this server knows, so the
			// write succeeds, over the object the other drives hold.
			// (The request is signed, so its header cannot be dropped:
			// remove the object first, then let the request through.)
			if err := h.remove(r.Context(), bucket, key); err != nil {
				io.Copy(io.Discard, r.Body)
				reply(w, r, http.StatusServiceUnavailable, "SlowDown", "forgetful layer: "+err.Error())
				return
			}
			h.stats.overwrote.Add(1)
		}
	}
	switch {
	case x < cfg.Refuse503:
		h.stats.r503.Add(1)
		io.Copy(io.Discard, r.Body)
		reply(w, r, http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
		return
	case x < cfg.Refuse503+cfg.Refuse500:
		h.stats.r500.Add(1)
		io.Copy(io.Discard, r.Body)
		reply(w, r, http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again.")
		return
	}
	applied503 := r.Method == http.MethodPut && x < cfg.Refuse503+cfg.Refuse500+cfg.Applied503

	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme = "http"
	out.URL.Host = h.upstream
	out.Host = r.Host // the request is signed for this host
	if h.upstreamHost {
		out.Host = h.direct
	}
	var resp *http.Response
	var err error
	if domain, manifest, ok := wireTarget(r); ok && h.wire != nil {
		resp, err = h.wire.roundTrip(h.client, h.route, r, out, domain, manifest)
	} else {
		resp, err = h.client.Do(out)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if applied503 && resp.StatusCode/100 == 2 {
		h.stats.a503.Add(1)
		io.Copy(io.Discard, resp.Body)
		reply(w, r, http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
		return
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// forgotten reports whether r addresses one of the object keys in forget
// (path-style: /bucket/key, with no sub-resource query; aws-sdk-go-v2
// adds x-id=GetObject and the like, which names no sub-resource).
func (h *httpFaults) forgotten(r *http.Request, forget []string) (bucket, key string, ok bool) {
	if len(forget) == 0 {
		return "", "", false
	}
	for q := range r.URL.Query() {
		if q != "x-id" {
			return "", "", false
		}
	}
	bucket, key, found := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if !found {
		return "", "", false
	}
	for _, k := range forget {
		if k == key {
			return bucket, key, true
		}
	}
	return "", "", false
}

// remove deletes bucket/key on the server directly, with the suite's
// credentials (from the environment).
func (h *httpFaults) remove(ctx context.Context, bucket, key string) error {
	h.mu.Lock()
	b, ok := h.buckets[bucket]
	h.mu.Unlock()
	if !ok {
		var err error
		if b, err = openBackend(ctx, spec.BackendS3, "http://"+h.direct, bucket); err != nil {
			return err
		}
		h.mu.Lock()
		h.buckets[bucket] = b
		h.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return b.Delete(ctx, key)
}

func reply(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		fmt.Fprintf(w, s3Error, code, msg, strings.ReplaceAll(r.URL.Path, "&", "&amp;"))
	}
}

func (h *httpFaults) control(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		var cfg spec.HTTPFaults
		if err := json.NewDecoder(r.Body).Decode(&cfg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.cfg = cfg
		h.mu.Unlock()
	}
	json.NewEncoder(w).Encode(spec.HTTPStats{
		Requests:   h.stats.requests.Load(),
		Refused503: h.stats.r503.Load(),
		Refused500: h.stats.r500.Load(),
		Applied503: h.stats.a503.Load(),

		ForgotReads:   h.stats.fRead.Load(),
		ForgotIfMatch: h.stats.fIfMatch.Load(),
		Overwrote:     h.stats.overwrote.Load(),
	})
}
