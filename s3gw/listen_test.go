package s3gw_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/s3gw"
)

// TestServe: the endpoint listens on loopback only; over TLS a client
// that trusts the run's CA (and no other) connects; headers past the
// bound are refused.
func TestServe(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0"} {
		if _, err := s3gw.Serve(http.NotFoundHandler(), s3gw.ServeOptions{Addr: addr}); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("Serve on %s: %v, want a refusal naming loopback", addr, err)
		}
	}
	ep, err := s3gw.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }), s3gw.ServeOptions{TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Shutdown(context.Background())
	if !strings.HasPrefix(ep.URL, "https://127.0.0.1:") || ep.CAPEM == nil {
		t.Fatalf("endpoint %s, CA %d bytes", ep.URL, len(ep.CAPEM))
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ep.CAPEM) {
		t.Fatal("the CA PEM does not parse")
	}
	trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, u := range []string{ep.URL, strings.Replace(ep.URL, "127.0.0.1", "localhost", 1), strings.Replace(ep.URL, "127.0.0.1", "bkt.localhost", 1)} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.URL.Host = strings.Replace(req.URL.Host, "bkt.localhost", "127.0.0.1", 1)
		req.Host = strings.TrimPrefix(u, "https://")
		tr := trusting.Transport.(*http.Transport).Clone()
		tr.TLSClientConfig.ServerName = strings.Split(req.Host, ":")[0]
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatalf("GET %s with the run's CA: %v", u, err)
		}
		resp.Body.Close()
	}
	if _, err := http.Get(ep.URL); err == nil {
		t.Fatal("a client that does not trust the run's CA connected")
	}
	req, _ := http.NewRequest(http.MethodGet, ep.URL, nil)
	req.Header.Set("X-Big", strings.Repeat("x", 100<<10))
	resp, err := trusting.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("100 KiB of headers: %d, want 431", resp.StatusCode)
	}
}

// TestPresigned: a GET presigned by the SDK reads the job's value with a
// plain HTTP client until it expires; then it is refused with 403.
func TestPresigned(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	e := newEnvOn(t, memstore.New(), s3gw.CommitAtEnd, false, func(o *s3gw.Options) { o.Now = now })
	c := e.client(testSecret, nil)
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("p"), Body: strings.NewReader("presigned")}); err != nil {
		t.Fatal(err)
	}
	pr, err := s3.NewPresignClient(c).PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(testBucket), Key: s3key("p")}, s3.WithPresignExpires(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(pr.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "presigned" {
		t.Fatalf("presigned GET: %d %q", resp.StatusCode, body)
	}
	mu.Lock()
	clock = clock.Add(11 * time.Minute)
	mu.Unlock()
	resp, err = http.Get(pr.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "AccessDenied") {
		t.Fatalf("expired presigned GET: %d %s, want 403 AccessDenied", resp.StatusCode, body)
	}
}
