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
	t1 := c.acquire("d", "--ttl", "5s", "--holder", "alice")
	r := c.want(0, "", "lease", "renew", "d", "--token", tok(t1), "--holder", "alice", "--ttl", "1m")
	exp, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(r.stdout))
	if err != nil || time.Until(exp) < 50*time.Second {
		t.Fatalf("renew printed %q (%v); want an expiry about a minute away", r.stdout, err)
	}
	// The coordinator recorded it: the lease has more left than its
	// first TTL.
	var s leaseStatus
	r = c.want(0, "", "--json", "lease", "status", "d")
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil || s.Token != t1 || s.Expires == nil || !s.Expires.Equal(exp) {
		t.Fatalf("status after renew printed %q (%v); want token %d until %s", r.stdout, err, t1, exp)
	}

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

// Every command that finds its lease lost says so with the same exit
// code: renew and release of a lease that was released, taken over or
// never held exit 5 (release exited 1 before 0.1.0).
func TestLeaseLostExitsTheSame(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--ttl", "1m", "--holder", "alice")
	c.want(0, "", "lease", "release", "d", "--token", tok(t1), "--holder", "alice")
	for _, verb := range []string{"renew", "release"} {
		r := c.want(exitLost, "", "lease", verb, "d", "--token", tok(t1), "--holder", "alice")
		if !strings.Contains(r.stderr, "released") {
			t.Errorf("%s of a released lease: stderr %q does not say it was released", verb, r.stderr)
		}
	}
	t2 := c.acquire("d", "--ttl", "1m", "--holder", "bob")
	c.want(0, "", "lease", "break", "d", "--holder", "ops")
	c.acquire("d", "--ttl", "1m", "--holder", "carol")
	for _, verb := range []string{"renew", "release"} {
		c.want(exitLost, "", "lease", verb, "d", "--token", tok(t2), "--holder", "bob")
		c.want(exitLost, "", "lease", verb, "never-held", "--token", "1", "--holder", "bob")
	}
}

// break ends a live lease held by another holder and fences the domain:
// the old holder's put is exit 3, its renew exit 5, and a new acquire
// succeeds at once.
func TestLeaseBreak(t *testing.T) {
	c := newCLI(t)
	t1 := c.acquire("d", "--ttl", "1h", "--holder", "alice")
	c.want(0, "v1", "put", "d", "k", "-", "--token", tok(t1))
	c.want(exitHeld, "", "lease", "acquire", "d", "--holder", "bob")

	var res struct {
		Domain    string `json:"domain"`
		OldHolder string `json:"old_holder"`
		OldToken  uint64 `json:"old_token"`
		Token     uint64 `json:"token"`
	}
	r := c.want(0, "", "--json", "lease", "break", "d", "--holder", "ops")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("lease break --json printed %q: %v", r.stdout, err)
	}
	if res.OldHolder != "alice" || res.OldToken != t1 || res.Token <= t1 {
		t.Fatalf("lease break = %+v; want alice's token %d ended and a higher token", res, t1)
	}
	r = c.want(exitFenced, "late", "put", "d", "k", "-", "--token", tok(t1))
	if !strings.Contains(r.stderr, tok(res.Token)) {
		t.Errorf("fenced put: stderr %q does not name the break's token %d", r.stderr, res.Token)
	}
	r = c.want(exitLost, "", "lease", "renew", "d", "--token", tok(t1), "--holder", "alice")
	if !strings.Contains(r.stderr, "nobody holds it") {
		t.Errorf("renew after break: stderr %q does not say nobody holds it", r.stderr)
	}
	if t2 := c.acquire("d", "--holder", "bob"); t2 <= res.Token {
		t.Fatalf("token after break %d; want above %d", t2, res.Token)
	}
	if r := c.want(0, "", "get", "d", "k"); r.stdout != "v1" {
		t.Fatalf("get after break = %q; want alice's committed write", r.stdout)
	}
	r = c.want(0, "", "lease", "break", "free")
	if !strings.Contains(r.stdout, "never acquired") {
		t.Errorf("break of a domain never acquired printed %q", r.stdout)
	}
}
