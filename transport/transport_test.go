package transport_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/transport"
)

var short = transport.Timeouts{Connect: time.Second, FirstByte: 300 * time.Millisecond, Idle: 300 * time.Millisecond}

// A server that answers headers and then stalls the body fails the read
// after Idle, with a context that has no deadline.
func TestIdleBodyFails(t *testing.T) {
	stall := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(200)
		w.Write([]byte("first bytes"))
		w.(http.Flusher).Flush()
		<-stall
	}))
	defer srv.Close()
	defer close(stall) // before Close, which waits for the handler
	resp, err := short.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	_, err = io.ReadAll(resp.Body)
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("read of a stalled body: %v, want a timeout", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the stalled read failed only after %s", d)
	}
}

// A slow but steady transfer is progress: a body that arrives a little at
// a time over many Idle periods is read whole.
func TestSteadyBodySucceeds(t *testing.T) {
	// Chunks a quarter of Idle apart: the body takes twice Idle, and a
	// loaded machine has three quarters of it to deliver each chunk.
	steady := transport.Timeouts{Connect: time.Second, FirstByte: time.Second, Idle: time.Second}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for range 8 {
			w.Write([]byte("chunk "))
			w.(http.Flusher).Flush()
			time.Sleep(steady.Idle / 4)
		}
	}))
	defer srv.Close()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", srv.URL, nil)
	resp, err := steady.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || string(data) != strings.Repeat("chunk ", 8) {
		t.Fatalf("steady body = %q, %v", data, err)
	}
}

// An answer slower than FirstByte fails; WithDefaults keeps Idle at least
// FirstByte, so the wait for the first byte is not cut short by it.
func TestFirstByte(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(time.Second)
	}))
	defer srv.Close()
	// Idle well above FirstByte, so that on a loaded machine the idle
	// deadline cannot fire first (as it did once with both at 300 ms).
	slowHeaders := transport.Timeouts{Connect: time.Second, FirstByte: 300 * time.Millisecond, Idle: 10 * time.Second}
	if _, err := slowHeaders.Client().Get(srv.URL); err == nil || !strings.Contains(err.Error(), "timeout awaiting response headers") {
		t.Fatalf("slow answer: %v, want a first-byte timeout", err)
	}
	if got := (transport.Timeouts{FirstByte: time.Minute, Idle: time.Second}).WithDefaults(); got.Idle != time.Minute {
		t.Fatalf("WithDefaults: Idle %s below FirstByte %s", got.Idle, got.FirstByte)
	}
}
