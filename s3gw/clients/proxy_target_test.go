package clients

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// proxyTarget is MinIO behind a reverse proxy of this process, over
// HTTPS (with a certificate for 127.0.0.1 that the contract's CA bundle
// names) or plain HTTP, which changes responses with modify when it is
// not nil. Over HTTPS the clients send what they send to the gateway:
// aws-chunked bodies with checksum trailers. The proxy keeps the Host
// header, so MinIO checks the signatures the clients made for the proxy.
type proxyTarget struct {
	m      *minioTarget
	tls    bool
	modify func(*http.Response) error
}

func (p *proxyTarget) open(t *testing.T, client string) run {
	t.Helper()
	r := p.m.open(t, client).(*minioRun)
	to, err := url.Parse(p.m.endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	modes := map[string]int{}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		t.Logf("%s's requests through the proxy, by method and x-amz-content-sha256 (a hex SHA-256 shown as <sha256>): %v", client, modes)
	})
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(to)
			pr.Out.Host = pr.In.Host
			mode := pr.In.Header.Get("X-Amz-Content-Sha256")
			if len(mode) == 64 && !strings.HasPrefix(mode, "STREAMING") {
				mode = "<sha256>"
			}
			if tr := pr.In.Header.Get("X-Amz-Trailer"); tr != "" {
				mode += " trailer " + tr
			}
			mu.Lock()
			modes[pr.In.Method+" "+mode]++
			mu.Unlock()
		},
		ModifyResponse: p.modify,
	}
	var ts *httptest.Server
	if p.tls {
		ts = httptest.NewTLSServer(proxy)
		ca := filepath.Join(t.TempDir(), "ca.pem")
		pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
		if err := os.WriteFile(ca, pemBytes, 0o644); err != nil {
			t.Fatal(err)
		}
		r.caBundle = ca
	} else {
		ts = httptest.NewServer(proxy)
	}
	t.Cleanup(ts.Close)
	r.endpoint = ts.URL
	return r
}

// TestClientsHTTPS runs every client's scenario through an HTTPS proxy
// in front of MinIO: each must trust the endpoint's certificate through
// the contract's AWS_CA_BUNDLE (NODE_EXTRA_CA_CERTS for node), and what
// MinIO stored from the clients' HTTPS uploads must hold no framing.
func TestClientsHTTPS(t *testing.T) {
	runClients(t, &proxyTarget{m: newMinioTarget(t), tls: true})
}
