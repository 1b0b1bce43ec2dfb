package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// status reports a domain never acquired, a live holder with the store's
// highest token, and a released lease, exiting 0 each time.
func TestLeaseStatus(t *testing.T) {
	c := newCLI(t)
	r := c.want(0, "", "lease", "status", "d")
	if !strings.Contains(r.stdout, "never acquired") || !strings.Contains(r.stdout, "store highest  0") {
		t.Fatalf("status of a new domain printed %q", r.stdout)
	}
	t1 := c.acquire("d", "--ttl", "1m", "--holder", "alice")
	r = c.want(0, "", "lease", "status", "d")
	for _, want := range []string{"holder         alice", "token          " + tok(t1), "(in ", "live           yes", "store highest  " + tok(t1)} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status of a held lease: %q does not contain %q", r.stdout, want)
		}
	}
	var s leaseStatus
	r = c.want(0, "", "--json", "lease", "status", "d")
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("status --json printed %q: %v", r.stdout, err)
	}
	if !s.Acquired || !s.Live || s.Holder != "alice" || s.Token != t1 || s.StoreHighest != t1 ||
		s.Expires == nil || s.TimeLeft == nil || *s.TimeLeft <= 0 || *s.TimeLeft > 60 {
		t.Fatalf("status --json = %+v", s)
	}
	c.want(0, "", "lease", "release", "d", "--token", tok(t1), "--holder", "alice")
	r = c.want(0, "", "lease", "status", "d")
	if !strings.Contains(r.stdout, "released (last token "+tok(t1)+")") {
		t.Fatalf("status after release printed %q", r.stdout)
	}
}

// renew extends a live lease and keeps its token; a lease taken over is
// exit 5, naming the holder now.
func TestLeaseRenew(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--ttl", "1s", "--holder", "alice")
	r := c.want(0, "", "lease", "renew", "d", "--token", tok(t1), "--holder", "alice", "--ttl", "1m")
	exp, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(r.stdout))
	if err != nil || time.Until(exp) < 50*time.Second {
		t.Fatalf("renew printed %q (%v); want an expiry about a minute away", r.stdout, err)
	}
	// Renewed for a minute: bob cannot take it after alice's first TTL.
	time.Sleep(1100 * time.Millisecond)
	c.want(exitHeld, "", "lease", "acquire", "d", "--holder", "bob")

	t2 := c.acquire("d", "--ttl", "1m", "--holder", "alice") // takes over with a new token
	r = c.want(exitLost, "", "lease", "renew", "d", "--token", tok(t1), "--holder", "alice")
	for _, want := range []string{"lease lost", `held by "alice" with token ` + tok(t2)} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("renew of a superseded token: stderr %q does not contain %q", r.stderr, want)
		}
	}
	c.want(0, "", "lease", "release", "d", "--token", tok(t2), "--holder", "alice")
	r = c.want(exitLost, "", "lease", "renew", "d", "--token", tok(t2), "--holder", "alice")
	if !strings.Contains(r.stderr, "released") {
		t.Errorf("renew after release: stderr %q does not say it was released", r.stderr)
	}
	c.want(exitLost, "", "lease", "renew", "other", "--token", "1")
	c.want(exitUsage, "", "lease", "renew", "d")
}
