package fence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// AuditEvent is one event of a domain's audit trail.
type AuditEvent struct {
	// Kind is "takeover" (a fence: a holder took the lease with a new
	// token, and every older token was rejected from then on), "commit",
	// or "lease" (the coordinator's record now, last).
	Kind   string    `json:"kind"`
	Time   time.Time `json:"time"` // by the writer's clock; for "lease", when it was read
	Token  uint64    `json:"token"`
	Holder string    `json:"holder"`
	// Seq and CommitID identify a commit or takeover in the manifest.
	Seq      uint64 `json:"seq,omitempty"`
	CommitID string `json:"commit_id,omitempty"`
	// Puts, Deletes and the key names (at most 16 of each) of a commit.
	Puts        int      `json:"puts,omitempty"`
	Deletes     int      `json:"deletes,omitempty"`
	PutKeys     []string `json:"put_keys,omitempty"`
	DeletedKeys []string `json:"deleted_keys,omitempty"`
	// Tenure is the lease a commit was made under: the takeover that
	// opened its token (when still in the log) and the one that ended it,
	// if any.
	Tenure *Tenure `json:"tenure,omitempty"`
	// Expires is when the current lease ends (kind "lease"); zero when
	// it was released.
	Expires time.Time `json:"expires,omitzero"`
}

// Tenure is the span of one token in a domain.
type Tenure struct {
	Token uint64 `json:"token"`
	// Since is the takeover that opened the token; nil when it is older
	// than the log.
	Since *AuditEvent `json:"since,omitempty"`
	// EndedBy is the takeover (or commit) that first carried a higher
	// token: from then on the store rejected this one. nil while the
	// token is the domain's highest.
	EndedBy *AuditEvent `json:"ended_by,omitempty"`
}

// AuditTrail is a domain's recent history joined with its lease.
type AuditTrail struct {
	Domain string       `json:"domain"`
	Events []AuditEvent `json:"events"`
	// FirstSeq and Since say what the manifest's log still covers: a
	// commit not in it either did not land or is older.
	FirstSeq uint64    `json:"first_seq"`
	Since    time.Time `json:"since"`
}

// Audit returns domain's audit trail: the takeovers and commits in the
// manifest's log (the last objstore.Options.LogLimit commits), each
// commit with the tenure of its token, then the coordinator's current
// record of the lease (when c is not nil). Lease renewals and releases
// are not recorded in the store: they are in the writers' logs and
// metrics (package observe).
func Audit(ctx context.Context, store *objstore.Store, c *coord.Coordinator, domain string) (AuditTrail, error) {
	recs, err := store.History(ctx, domain, nil)
	if err != nil {
		return AuditTrail{}, err
	}
	t := AuditTrail{Domain: domain}
	if len(recs) > 0 {
		t.FirstSeq, t.Since = recs[0].Seq, recs[0].Time
	}
	opened := map[uint64]*AuditEvent{} // token -> its takeover
	for _, r := range recs {
		e := AuditEvent{Kind: "commit", Time: r.Time, Token: r.Token, Holder: r.Holder, Seq: r.Seq, CommitID: r.ID,
			Puts: r.Puts, Deletes: r.Deletes, PutKeys: r.PutKeys, DeletedKeys: r.DeletedKeys}
		if r.Fence {
			e.Kind = "takeover"
		}
		t.Events = append(t.Events, e)
	}
	for i := range t.Events {
		if t.Events[i].Kind == "takeover" {
			e := t.Events[i]
			opened[e.Token] = &e
		}
	}
	for i := range t.Events {
		e := &t.Events[i]
		if e.Kind != "commit" {
			continue
		}
		ten := &Tenure{Token: e.Token, Since: opened[e.Token]}
		for j := i + 1; j < len(t.Events); j++ {
			if t.Events[j].Token > e.Token {
				end := t.Events[j]
				end.Tenure = nil
				ten.EndedBy = &end
				break
			}
		}
		e.Tenure = ten
	}
	if c != nil {
		st, err := c.State(ctx, domain)
		if err != nil {
			return t, fmt.Errorf("fence: audit %q: read the lease: %w", domain, err)
		}
		t.Events = append(t.Events, AuditEvent{Kind: "lease", Time: time.Now().UTC(), Token: st.Token, Holder: st.Holder, Expires: st.Expires})
	}
	return t, nil
}

// ErrNotInLog: the commit is not in the domain's log: it did not land,
// or it landed before the oldest commit the log still holds.
var ErrNotInLog = errors.New("fence: commit not in the domain's log")

// Find returns the commit or takeover with commit id id, or an error
// matching ErrNotInLog that says what the log covers.
func (t AuditTrail) Find(id string) (AuditEvent, error) {
	for _, e := range t.Events {
		if e.CommitID == id {
			return e, nil
		}
	}
	return AuditEvent{}, fmt.Errorf("%w: %s is not among %q's commits since seq %d (%s): it did not land (a fenced or failed commit never does), or it is older", ErrNotInLog, id, t.Domain, t.FirstSeq, t.Since.UTC().Format(time.RFC3339))
}
