package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/objstore"
)

// parallel bounds the domains of a page read at once.
const parallel = 8

// notAsked starts the lease error of a domain whose lease was not read.
const notAsked = "coordinator: not asked"

// DomainRow is one domain on the domains page.
type DomainRow struct {
	Domain string `json:"domain"`
	// Lease is the coordinator's record; nil when it could not be read
	// (LeaseError says why) or there is no coordinator.
	Lease      *LeaseStatus `json:"lease,omitempty"`
	LeaseError string       `json:"lease_error,omitempty"`
	Highest    uint64       `json:"store_highest_token"`
	Seq        uint64       `json:"seq"`
	// LastCommit is the newest record of the manifest's log.
	LastCommit *objstore.LogRecord `json:"last_commit,omitempty"`
	// FencedAttempts counts the fenced attempts found (see Attempt);
	// LastAttemptFenced is set when the newest came after the last commit.
	FencedAttempts    int  `json:"fenced_attempts"`
	LastAttemptFenced bool `json:"last_attempt_fenced"`
	// ExpiredNotReleased: the lease ran out and nobody released it.
	ExpiredNotReleased bool `json:"expired_not_released"`
	// Error says what is wrong with the domain (a corrupt manifest); the
	// other fields are then empty.
	Error string `json:"error,omitempty"`
}

// DomainsPage is the domains page.
type DomainsPage struct {
	Domains []DomainRow `json:"domains"`
	// Next is the cursor of the next page (?after=NEXT); "" on the last.
	// NextURL is the HTML page's link to it.
	Next    string `json:"next,omitempty"`
	NextURL string `json:"-"`
	// Scanned is the number of objects the walk read; Capped says it
	// stopped at its bound before the page was full.
	Scanned int  `json:"scanned_objects"`
	Capped  bool `json:"capped,omitempty"`
	// CoordError is set when no lease could be read: the coordinator is
	// unreachable.
	CoordError string `json:"coordinator_error,omitempty"`
}

// MarshalJSON writes p with its lists as [] when empty, never null.
func (p DomainsPage) MarshalJSON() ([]byte, error) {
	type plain DomainsPage
	q := plain(p)
	q.Domains = orEmpty(q.Domains)
	return json.Marshal(q)
}

// domainsPage reads one page of domains after the cursor after.
func (s *Server) domainsPage(ctx context.Context, after string, limit int) (DomainsPage, error) {
	w, err := walkDomains(ctx, s.b, after, limit, s.o.MaxScan, s.o.MaxVersions)
	if err != nil {
		return DomainsPage{}, fmt.Errorf("list the store's objects: %w", err)
	}
	p := DomainsPage{Domains: make([]DomainRow, len(w.domains)), Next: w.next, Scanned: w.scanned, Capped: w.capped}
	now := s.o.Now()
	down := new(atomic.Bool) // a lease read failed: ask the coordinator no more
	var g errgroup.Group
	g.SetLimit(parallel)
	for i, f := range w.domains {
		g.Go(func() error {
			p.Domains[i] = s.row(ctx, f, now, down)
			return nil
		})
	}
	_ = g.Wait()
	leases, failed := 0, ""
	for _, r := range p.Domains {
		if r.Lease != nil {
			leases++
		} else if r.LeaseError != "" && (failed == "" || strings.HasPrefix(failed, notAsked)) {
			failed = r.LeaseError
		}
	}
	if s.c != nil && leases == 0 && failed != "" {
		p.CoordError = failed
	}
	return p, nil
}

// row reads one domain's manifest log and lease.
func (s *Server) row(ctx context.Context, f *found, now time.Time, down *atomic.Bool) DomainRow {
	r := DomainRow{Domain: f.domain}
	recs, err := s.store.History(ctx, f.domain, nil)
	if err != nil {
		r.Error = describe(err)
		return r
	}
	r.Highest, r.Seq = highest(recs), lastSeq(recs)
	if len(recs) > 0 {
		last := recs[len(recs)-1]
		r.LastCommit = &last
	}
	attempts, err := fencedAttempts(ctx, s.store, f.domain, recs, r.Highest, f.versions)
	if err != nil {
		r.Error = describe(err)
		return r
	}
	r.FencedAttempts = len(attempts)
	if n := len(attempts); n > 0 && r.LastCommit != nil && attempts[n-1].Time.After(r.LastCommit.Time) {
		r.LastAttemptFenced = true
	}
	if down.Load() {
		r.LeaseError = notAsked + ": a read of another lease failed in this request"
		return r
	}
	r.Lease, r.LeaseError = s.lease(ctx, f.domain, r.Highest, now)
	if r.LeaseError != "" {
		down.Store(true)
	}
	r.ExpiredNotReleased = r.Lease.Expired()
	return r
}

// lease reads domain's lease, or says why it could not.
func (s *Server) lease(ctx context.Context, domain string, highest uint64, now time.Time) (*LeaseStatus, string) {
	if s.c == nil {
		return nil, ""
	}
	// A coordinator that does not answer must not take the whole
	// request's time: the rest of the page can still show.
	ctx, cancel := context.WithTimeout(ctx, min(5*time.Second, s.o.Timeout/2))
	defer cancel()
	st, err := s.c.State(ctx, domain)
	if err != nil {
		return nil, "coordinator: " + describe(err)
	}
	return leaseStatus(st, highest, now), ""
}

// highest is the highest token in a domain's log: the token of the
// commit that raised it last.
func highest(recs []objstore.LogRecord) uint64 {
	var h uint64
	for _, r := range recs {
		h = max(h, r.Token)
	}
	return h
}

func lastSeq(recs []objstore.LogRecord) uint64 {
	if len(recs) == 0 {
		return 0
	}
	return recs[len(recs)-1].Seq
}

// describe says what went wrong. A corrupt manifest's error names the
// object and what is wrong with it.
func describe(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out: " + err.Error()
	}
	return err.Error()
}
