package objstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/fencedstore/fence/internal/format"
)

// LogRecord is one commit in a domain's history, as History returns it.
type LogRecord struct {
	Seq    uint64    `json:"seq"` // the manifest version the commit wrote
	ID     string    `json:"id"`  // the commit id
	Token  uint64    `json:"token"`
	Holder string    `json:"holder"`
	Time   time.Time `json:"time"` // by the committing Store's clock
	// Puts and Deletes count the keys the commit put and deleted.
	Puts    int `json:"puts"`
	Deletes int `json:"deletes"`
	// PutKeys and DeletedKeys name them, sorted: at most 16 of each.
	// Truncated is set when they name fewer than the counts: a commit of
	// more than 16 keys of a kind, or one written by a build that did not
	// record names.
	PutKeys     []string `json:"put_keys,omitempty"`
	DeletedKeys []string `json:"deleted_keys,omitempty"`
	Truncated   bool     `json:"truncated,omitempty"`
	// Fence is set for a commit that changed no key and raised the
	// domain's highest token: the takeover of a new lease holder, from
	// which on every lower token was rejected. (The oldest record's
	// predecessor may be gone from the log; a commit without changes is
	// marked a fence there too, as the store takes one only when it
	// raises the token or is the retry of the one that did.)
	Fence bool `json:"fence"`
}

// HistoryOptions selects records. nil or the zero value selects all.
type HistoryOptions struct {
	// Since keeps only the commits at or after it.
	Since time.Time
}

// History returns the recent commits of domain, oldest first, from the
// manifest's log: the last Options.LogLimit commits (64 by default), so
// older ones are not returned. It fails with an error matching
// ErrNotFound when nothing was ever committed to the domain.
func (s *Store) History(ctx context.Context, domain string, opts *HistoryOptions) ([]LogRecord, error) {
	if err := ValidateDomain(domain); err != nil {
		return nil, err
	}
	var o HistoryOptions
	if opts != nil {
		o = *opts
	}
	m, _, err := s.loadManifest(ctx, domain)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("objstore: domain %q has no manifest (nothing was committed to it): %w", domain, ErrNotFound)
	}
	var recs []LogRecord
	for i, e := range m.Log {
		raised := i == 0 || e.Token > m.Log[i-1].Token
		if e.Time.Before(o.Since) {
			continue
		}
		recs = append(recs, logRecord(e, raised))
	}
	return recs, nil
}

// logRecord describes log entry e to a user; raised says whether its
// token is above the previous entry's.
func logRecord(e format.LogEntry, raised bool) LogRecord {
	return LogRecord{
		Seq: e.Seq, ID: e.ID, Token: e.Token, Holder: e.Holder, Time: e.Time,
		Puts: e.Puts, Deletes: e.Deletes,
		PutKeys: slices.Clone(e.PutKeys), DeletedKeys: slices.Clone(e.DeletedKeys),
		Truncated: len(e.PutKeys) < e.Puts || len(e.DeletedKeys) < e.Deletes,
		Fence:     e.Puts == 0 && e.Deletes == 0 && raised,
	}
}
