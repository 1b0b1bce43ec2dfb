package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// A job adds an outbox record with its token; after it releases its
// lease, outbox dispatch posts it once with an Idempotency-Key header and
// records the delivery.
func TestOutboxCLI(t *testing.T) {
	var (
		mu   sync.Mutex
		keys []string
		body string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		keys, body = append(keys, r.Header.Get("Idempotency-Key")), string(b)
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	c := newCLI(t)
	n := c.acquire("jobs")
	c.want(0, `{"report":"daily"}`, "outbox", "add", "jobs", "--to", srv.URL+"/hook", "-", "--token", tok(n))
	r := c.want(0, "", "outbox", "ls", "jobs")
	if !strings.Contains(r.stdout, "pending") {
		t.Fatalf("outbox ls:\n%s", r.stdout)
	}
	c.want(exitHeld, "", "outbox", "dispatch", "jobs") // the job still holds the lease
	c.want(0, "", "lease", "release", "jobs", "--token", tok(n))
	r = c.want(0, "", "outbox", "dispatch", "jobs")
	if !strings.Contains(r.stdout, "delivered 1, failed 0, 0 left") {
		t.Errorf("outbox dispatch: %q", r.stdout)
	}
	c.want(0, "", "outbox", "dispatch", "jobs") // nothing left: no second delivery
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 1 || len(keys[0]) != 32 || body != `{"report":"daily"}` {
		t.Errorf("deliveries: keys %v, body %q", keys, body)
	}
	r = c.want(0, "", "outbox", "ls", "jobs")
	if !strings.Contains(r.stdout, "delivered  "+keys[0]) {
		t.Errorf("outbox ls after dispatch:\n%s", r.stdout)
	}
	c.want(exitFenced, "x", "outbox", "add", "jobs", "--to", srv.URL, "-", "--token", tok(n))
}
