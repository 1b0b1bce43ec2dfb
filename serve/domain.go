package serve

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/objstore"
)

// DomainPage is one domain's page.
type DomainPage struct {
	Domain     string       `json:"domain"`
	Lease      *LeaseStatus `json:"lease,omitempty"`
	LeaseError string       `json:"lease_error,omitempty"`
	Highest    uint64       `json:"store_highest_token"`
	Seq        uint64       `json:"seq"`
	// Keys is one page of the live keys, as 'fence ls --json' prints
	// them; KeysNext is the key to pass as ?after= for the next page,
	// and KeysNextURL the HTML page's link to it.
	Keys        []objstore.Version `json:"keys"`
	KeysNext    string             `json:"keys_next,omitempty"`
	KeysNextURL string             `json:"-"`
	// History is the audit trail of 'fence history --jsonl' (without
	// the lease, which is Lease).
	History fence.AuditTrail `json:"history"`
	// Attempts are the fenced attempts on record (the newest
	// objstore.MaxFencedAttempts records) and those found among the
	// first Options.MaxVersions version objects, oldest first;
	// AttemptsMore says there were more records or objects than that.
	Attempts     []Attempt `json:"fenced_attempts"`
	AttemptsMore bool      `json:"fenced_attempts_truncated,omitempty"`
	// Timeline is every event in time order: takeovers, commits, fenced
	// attempts and the lease now.
	Timeline []Point `json:"timeline"`
}

// MarshalJSON writes p with its lists as [] when empty, never null.
func (p DomainPage) MarshalJSON() ([]byte, error) {
	type plain DomainPage
	q := plain(p)
	q.Keys = orEmpty(q.Keys)
	q.History.Events = orEmpty(q.History.Events)
	q.Attempts = orEmpty(q.Attempts)
	q.Timeline = orEmpty(q.Timeline)
	return json.Marshal(q)
}

// orEmpty is s, or an empty slice for nil: JSON's [] rather than null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// domainPage reads domain's page, with the keys after after.
func (s *Server) domainPage(ctx context.Context, domain, after string, limit int) (DomainPage, error) {
	p := DomainPage{Domain: domain}
	sn, err := s.store.Snapshot(ctx, domain)
	if err != nil {
		return p, err
	}
	p.Highest, p.Seq = sn.Highest(), sn.Seq()
	if p.Keys, p.KeysNext, err = keysPage(ctx, sn, after, limit); err != nil {
		return p, fmt.Errorf("list the keys: %w", err)
	}
	if p.History, err = fence.Audit(ctx, s.store, nil, domain); err != nil {
		return p, fmt.Errorf("read the history: %w", err)
	}
	recs, err := s.store.History(ctx, domain, nil)
	if err != nil {
		return p, fmt.Errorf("read the history: %w", err)
	}
	versions, more, err := walkVersions(ctx, s.b, domain, s.o.MaxVersions)
	if err != nil {
		return p, fmt.Errorf("list the version objects: %w", err)
	}
	var recordsMore bool
	if p.Attempts, recordsMore, err = attempts(ctx, s.store, domain, recs, p.Highest, versions, false); err != nil {
		return p, fmt.Errorf("look for fenced attempts: %w", err)
	}
	p.AttemptsMore = more || recordsMore
	p.Lease, p.LeaseError = s.lease(ctx, domain, p.Highest, s.o.Now())
	p.Timeline = timeline(p.History, p.Attempts, p.Lease, s.o.Now())
	return p, nil
}

// keysPage returns a page of keys and the cursor of the next, if any.
func keysPage(ctx context.Context, sn *objstore.Snapshot, after string, limit int) ([]objstore.Version, string, error) {
	vs, more, err := listKeys(ctx, sn, after, limit)
	if err != nil {
		return nil, "", err
	}
	if vs == nil {
		vs = []objstore.Version{}
	}
	if more {
		return vs, vs[len(vs)-1].Key, nil
	}
	return vs, "", nil
}

// commitPage returns the commit of domain with id, as 'fence history
// --commit ID --json' prints it.
func (s *Server) commitPage(ctx context.Context, domain, id string) (fence.AuditEvent, error) {
	t, err := fence.Audit(ctx, s.store, nil, domain)
	if err != nil {
		return fence.AuditEvent{}, err
	}
	return t.Find(id)
}
