package serve

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/fencedstore/fence/objstore"
)

// parallel bounds the domains of a page read at once.
const parallel = 8

// notAsked starts the lease error of a domain whose lease was not read.
const notAsked = "coordinator: not asked"

// DomainRow is one domain on the domains page.
type DomainRow struct {
	Domain string `json:"domain"`
	// State is the first that applies of corrupt, unreadable, fenced
	// (recently), expired, coordinator_unreachable and healthy: see
	// StateCorrupt and the others.
	State string `json:"state"`
	// Lease is the coordinator's record; nil when it could not be read
	// (LeaseError says why) or there is no coordinator.
	Lease      *LeaseStatus `json:"lease,omitempty"`
	LeaseError string       `json:"lease_error,omitempty"`
	Highest    uint64       `json:"store_highest_token"`
	Seq        uint64       `json:"seq"`
	// LastCommit is the newest record of the manifest's log; its holder
	// is the committing process's name. LastCommitBy is the lease holder
	// it was made under, where the log or the lease says (Attribution).
	LastCommit   *objstore.LogRecord `json:"last_commit,omitempty"`
	LastCommitBy *Attribution        `json:"last_commit_by,omitempty"`
	// FencedAttempts counts the fenced attempts found (see Attempt);
	// LastAttemptFenced is set when the newest came after the last commit,
	// and LastFenced is its time.
	FencedAttempts    int        `json:"fenced_attempts"`
	LastAttemptFenced bool       `json:"last_attempt_fenced"`
	LastFenced        *time.Time `json:"last_fenced,omitempty"`
	// ExpiredNotReleased: the lease ran out and nobody released it.
	ExpiredNotReleased bool `json:"expired_not_released"`
	// Error says what is wrong with the domain (a corrupt manifest); the
	// other fields are then empty.
	Error string `json:"error,omitempty"`
	// brief and advice are Error split by splitAdvice, for the HTML.
	brief, advice string
}

// row reads one domain's manifest log and lease, and classifies it.
func (s *Server) row(ctx context.Context, f *found, now time.Time, down *atomic.Bool) (r DomainRow) {
	r.Domain = f.domain
	corrupt := false
	defer func() { classify(&r, corrupt, now, s.o.Recent) }()
	recs, err := s.store.History(ctx, f.domain, nil)
	if err != nil {
		r.Error, corrupt = describe(err), errors.Is(err, objstore.ErrCorruptManifest)
		r.brief, r.advice = splitAdvice(err)
		return r
	}
	r.Highest, r.Seq = highest(recs), lastSeq(recs)
	if len(recs) > 0 {
		last := recs[len(recs)-1]
		r.LastCommit = &last
	}
	attempts, err := fencedAttempts(ctx, s.store, f.domain, recs, r.Highest, f.versions)
	if err != nil {
		r.Error, corrupt = describe(err), errors.Is(err, objstore.ErrCorruptManifest)
		return r
	}
	r.FencedAttempts = len(attempts)
	if n := len(attempts); n > 0 {
		t := attempts[n-1].Time
		r.LastFenced = &t
		r.LastAttemptFenced = r.LastCommit != nil && t.After(r.LastCommit.Time)
	}
	defer func() {
		if r.LastCommit != nil {
			r.LastCommitBy = attribute(recs, *r.LastCommit, r.Lease)
		}
	}()
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
