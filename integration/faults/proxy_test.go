package faults

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"

	"github.com/fencedstore/fence/integration/faults/internal/spec"
)

// faultProxy is the running fault proxy process: toxiproxy with one proxy
// per route, and HTTP fault layers on the S3 routes.
type faultProxy struct {
	cmd   *exec.Cmd
	ready spec.ProxyReady
	toxi  *toxiclient.Client
	http  *http.Client
}

func startProxy(bin, dir string, cfg spec.Proxy) (*faultProxy, error) {
	path := filepath.Join(dir, "proxy.json")
	if err := spec.Save(path, cfg); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "proxy.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "proxy", path)
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &faultProxy{cmd: cmd, http: &http.Client{Timeout: 10 * time.Second}}
	line := make(chan []byte, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Bytes()
		}
		close(line)
		for sc.Scan() { // drain
		}
	}()
	select {
	case b, ok := <-line:
		if !ok {
			p.stop()
			return nil, fmt.Errorf("fault proxy exited before it was ready (see %s)", filepath.Join(dir, "proxy.log"))
		}
		if err := json.Unmarshal(b, &p.ready); err != nil {
			p.stop()
			return nil, fmt.Errorf("fault proxy printed %q: %w", b, err)
		}
	case <-time.After(time.Minute):
		p.stop()
		return nil, fmt.Errorf("fault proxy not ready within a minute")
	}
	p.toxi = toxiclient.NewClient(p.ready.API)
	return p, nil
}

func (p *faultProxy) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// addr returns where clients of route connect.
func (p *faultProxy) addr(route string) string { return p.ready.Listen[route] }

// toxic adds a toxic to route; stream is "upstream" (client to server) or
// "downstream".
func (p *faultProxy) toxic(route, name, typ, stream string, attrs toxiclient.Attributes) error {
	px, err := p.toxi.Proxy(route)
	if err != nil {
		return err
	}
	_, err = px.AddToxic(name, typ, stream, 1, attrs)
	return err
}

// blackhole makes route swallow everything in both directions without
// closing connections: a partition.
func (p *faultProxy) blackhole(route string) error {
	if err := p.toxic(route, "partition-up", "timeout", "upstream", toxiclient.Attributes{"timeout": 0}); err != nil {
		return err
	}
	return p.toxic(route, "partition-down", "timeout", "downstream", toxiclient.Attributes{"timeout": 0})
}

// dropReplies lets requests through route but drops the replies, closing
// each connection after ms milliseconds.
func (p *faultProxy) dropReplies(route string, ms int) error {
	return p.toxic(route, "drop-replies", "timeout", "downstream", toxiclient.Attributes{"timeout": ms})
}

// heal removes every toxic from every route.
func (p *faultProxy) heal() error { return p.toxi.ResetState() }

// setHTTP configures route's HTTP fault layer and returns its counters.
func (p *faultProxy) setHTTP(route string, cfg *spec.HTTPFaults) (spec.HTTPStats, error) {
	var st spec.HTTPStats
	addr, ok := p.ready.HTTP[route]
	if !ok {
		return st, fmt.Errorf("route %s has no HTTP fault layer", route)
	}
	var resp *http.Response
	var err error
	if cfg != nil {
		body, _ := json.Marshal(cfg)
		resp, err = p.http.Post("http://"+addr+"/_faults", "application/json", bytes.NewReader(body))
	} else {
		resp, err = p.http.Get("http://" + addr + "/_faults")
	}
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(resp.Body).Decode(&st)
	return st, err
}
