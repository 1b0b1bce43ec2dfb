package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/objstore/driver"
)

func TestWireTarget(t *testing.T) {
	for _, tc := range []struct {
		method, target string
		domain         string
		manifest, ok   bool
	}{
		{"PUT", "/acct/c/d1/nested/_fence/manifest.json", "/acct/c/d1/nested", true, true},
		{"PUT", "/acct/c/d/_fence/manifest.json?comp=blocklist", "/acct/c/d", true, true},
		{"PUT", "/acct/c/d/_fence/manifest.json?comp=block&blockid=x", "", false, false}, // staging writes no blob
		{"PUT", "/acct/c/d/_fence/manifest.json?comp=metadata", "", false, false},
		{"DELETE", "/acct/c/d/_fence/manifest.json", "/acct/c/d", true, true},
		{"GET", "/acct/c/d/_fence/manifest.json", "", false, false},
		{"PUT", "/acct/c/d/_fence/v/k0@1-a", "/acct/c/d", false, true},
		{"DELETE", "/acct/c/d/_fence/v/k0@1-a", "/acct/c/d", false, true},
		{"PUT", "/acct/c/d/_fence/lease.json", "", false, false},
		{"PUT", "/acct/c/d/k0", "", false, false},
	} {
		r := httptest.NewRequest(tc.method, tc.target, nil)
		domain, manifest, ok := wireTarget(r)
		if domain != tc.domain || manifest != tc.manifest || ok != tc.ok {
			t.Errorf("%s %s: (%q, %v, %v), want (%q, %v, %v)", tc.method, tc.target, domain, manifest, ok, tc.domain, tc.manifest, tc.ok)
		}
	}
}

// TestWireRecordOrder: a recorded route sends one domain's writes to the
// server one at a time (another domain's go on beside them), records
// each with the server's answer in the order the server answered, and
// waits for the answer of a write whose client has gone.
func TestWireRecordOrder(t *testing.T) {
	var (
		mu       sync.Mutex
		inFlight = map[string]int{}
		most     = map[string]int{}
		applied  []string // the server's order of manifest writes of d
		n        int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		domain := r.URL.Path[:strings.Index(r.URL.Path, "/_fence/")]
		mu.Lock()
		inFlight[domain]++
		most[domain] = max(most[domain], inFlight[domain])
		mu.Unlock()
		delay := time.Duration(5+rand.IntN(10)) * time.Millisecond
		if string(body) == "gone" {
			delay = 300 * time.Millisecond // its client gives up before
		}
		time.Sleep(delay)
		mu.Lock()
		inFlight[domain]--
		n++
		etag := fmt.Sprintf(`"e%d"`, n)
		if domain == "/acct/c/d" {
			applied = append(applied, string(body))
		}
		mu.Unlock()
		w.Header().Set("ETag", etag)
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "wire.jsonl")
	wire, err := openWireRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	h := &httpFaults{route: "r", upstream: u.Host, direct: u.Host, wire: wire, rng: rand.New(rand.NewPCG(1, 2)), buckets: map[string]driver.Backend{}}
	h.client = &http.Client{}
	front := httptest.NewServer(h)
	defer front.Close()

	put := func(ctx context.Context, path, body string) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPut, front.URL+path, strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := put(context.Background(), "/acct/c/d/_fence/manifest.json", fmt.Sprint("m", i)); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if err := put(context.Background(), fmt.Sprintf("/acct/c/e/_fence/v/k@1-%d", i), "v"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// A client that gives up before the answer.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	if err := put(ctx, "/acct/c/d/_fence/manifest.json", "gone"); err == nil {
		t.Error("the write answered before its client gave up")
	}
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	var lines []spec.WireWrite
	for time.Now().Before(deadline) {
		lines = readWire(t, path)
		if len(lines) == 17 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(lines) != 17 {
		t.Fatalf("%d lines in the wire record, want 17", len(lines))
	}
	mu.Lock()
	defer mu.Unlock()
	if most["/acct/c/d"] != 1 {
		t.Errorf("the server had %d writes of one domain at once, want 1", most["/acct/c/d"])
	}
	var recorded []string
	var last int64
	for _, l := range lines {
		if !strings.HasPrefix(l.Path, "/acct/c/d/") {
			if l.Body != nil {
				t.Errorf("%s: a version write's body was recorded", l.Path)
			}
			continue
		}
		if l.Status != http.StatusCreated || l.ETag == "" || l.Route != "r" {
			t.Errorf("%s: status %d, ETag %q, route %q: want the server's answer", l.Path, l.Status, l.ETag, l.Route)
		}
		if l.At <= last {
			t.Errorf("manifest writes recorded out of order: At %d after %d", l.At, last)
		}
		last = l.At
		recorded = append(recorded, string(l.Body))
	}
	if strings.Join(recorded, ",") != strings.Join(applied, ",") {
		t.Errorf("recorded order %v, server's order %v", recorded, applied)
	}
	if applied[len(applied)-1] != "gone" {
		t.Errorf("the write whose client went away was not the last applied: %v", applied)
	}
}

func readWire(t *testing.T, path string) []spec.WireWrite {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []spec.WireWrite
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var w spec.WireWrite
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			t.Fatal(err)
		}
		out = append(out, w)
	}
	return out
}
