package serve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// Attempt is a fenced write: a commit or fence the store refused because
// its token was stale. It is found in one of two ways (Source):
//
//   - "record": the refusing Store wrote a record of it
//     (objstore.Store.FencedAttempts), whatever the attempt's size:
//     Record holds it on the domain page;
//   - "version": a version object a holder uploaded with a token below
//     the domain's highest, which no commit published (until fence gc
//     removes it), and of which no record exists: a holder that died
//     before it learnt it was fenced, or whose record's write failed.
type Attempt struct {
	// Key is the key written: for a record, the first it names ("" for
	// a fence, or when it names none).
	Key   string `json:"key"`
	Token uint64 `json:"token"`
	// FencedBy is the token that rejected it: for a record, the one the
	// record names; for a version, the first token above it in the
	// domain's log, else the domain's highest.
	FencedBy uint64 `json:"fenced_by"`
	// Time is when the record or the version object was stored, by the
	// store's clock.
	Time   time.Time `json:"time"`
	Object string    `json:"object"`
	Source string    `json:"source"`
	// Record is the record's content (domain page only).
	Record *objstore.FencedAttempt `json:"record,omitempty"`
}

// Holder is the refused holder, when a record names it.
func (a Attempt) Holder() string {
	if a.Record == nil {
		return ""
	}
	return a.Record.Holder
}

// Refusal says why the store refused it, in words.
func (a Attempt) Refusal() string {
	if a.Record != nil {
		switch a.Record.Reason {
		case "issued":
			return fmt.Sprintf("the coordinator had issued token %d", a.FencedBy)
		case "claimed":
			return fmt.Sprintf("token %d was already claimed by another commit", a.FencedBy)
		}
	}
	return fmt.Sprintf("token %d was accepted", a.FencedBy)
}

// What says what the attempt tried, in words.
func (a Attempt) What() string {
	r := a.Record
	switch {
	case r == nil && a.Source == "record":
		return "a refused attempt (its record was not read)"
	case r == nil:
		return fmt.Sprintf("put %q (an uploaded version no commit published)", a.Key)
	case r.Error != "":
		return "unreadable record: " + r.Error
	case r.Fence:
		return "fence (a takeover with a stale token)"
	}
	var parts []string
	if r.Puts > 0 {
		var names []string
		for i, k := range r.PutKeys {
			names = append(names, fmt.Sprintf("%q (%s)", k, size(r.PutSizes[i])))
		}
		parts = append(parts, "put "+list(names, r.Puts))
	}
	if r.Deletes > 0 {
		var names []string
		for _, k := range r.DeletedKeys {
			names = append(names, fmt.Sprintf("%q", k))
		}
		parts = append(parts, "delete "+list(names, r.Deletes))
	}
	return strings.Join(parts, "; ")
}

// list joins names, of count, saying how many more there were.
func list(names []string, count int) string {
	s := strings.Join(names, ", ")
	switch more := count - len(names); {
	case len(names) == 0:
		return fmt.Sprintf("%d keys", count)
	case more > 0:
		return fmt.Sprintf("%s and %d more", s, more)
	}
	return s
}

// size writes n bytes for a person; -1 is unknown.
func size(n int64) string {
	switch {
	case n < 0:
		return "size unknown"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// fencedAttempts returns domain's fenced attempts, oldest first, from
// what its records' names say (one listing: the domains page) and from
// versions, its version objects. recs is the domain's log and highest
// its highest token.
func fencedAttempts(ctx context.Context, store *objstore.Store, domain string, recs []objstore.LogRecord, highest uint64, versions []driver.ObjectInfo) ([]Attempt, error) {
	out, _, err := attempts(ctx, store, domain, recs, highest, versions, true)
	return out, err
}

// attempts returns domain's fenced attempts, oldest first: the newest
// objstore.MaxFencedAttempts records (read in full unless namesOnly;
// more says there were more) and the orphan versions among versions that
// no record covers.
func attempts(ctx context.Context, store *objstore.Store, domain string, recs []objstore.LogRecord, highest uint64, versions []driver.ObjectInfo, namesOnly bool) (out []Attempt, more bool, err error) {
	records, more, err := store.FencedAttempts(ctx, domain, &objstore.FencedOptions{NamesOnly: namesOnly})
	if err != nil {
		return nil, false, err
	}
	recorded := map[uint64][]time.Time{} // record times by refused token
	for _, r := range records {
		a := Attempt{Token: r.Token, FencedBy: r.FencedBy, Time: r.Recorded, Object: r.Object, Source: "record"}
		if !namesOnly {
			a.Record = &r
			if len(r.PutKeys) > 0 {
				a.Key = r.PutKeys[0]
			} else if len(r.DeletedKeys) > 0 {
				a.Key = r.DeletedKeys[0]
			}
		}
		recorded[r.Token] = append(recorded[r.Token], r.Recorded)
		out = append(out, a)
	}
	orphans, err := orphanAttempts(ctx, store, domain, recs, highest, versions)
	if err != nil {
		return nil, false, err
	}
	for _, o := range orphans {
		// An upload cut short by a refusal is also in the refusal's
		// record, stored after it.
		if !slices.ContainsFunc(recorded[o.Token], func(t time.Time) bool { return !t.Before(o.Time) }) {
			out = append(out, o)
		}
	}
	slices.SortStableFunc(out, func(a, b Attempt) int { return a.Time.Compare(b.Time) })
	return out, more, nil
}

// orphanAttempts finds the fenced attempts among versions, domain's
// version objects: versions no commit published. recs is the domain's
// log and highest its highest token. Only versions uploaded since the
// log's first record are examined: an older one may be a value a later
// commit replaced.
func orphanAttempts(ctx context.Context, store *objstore.Store, domain string, recs []objstore.LogRecord, highest uint64, versions []driver.ObjectInfo) ([]Attempt, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	var (
		out []Attempt
		sn  *objstore.Snapshot
	)
	for _, o := range versions {
		_, key, token, _, err := format.ParseVersionKey(o.Key)
		if err != nil || token >= highest || modified(o).Before(recs[0].Time) || committed(recs, key, token) {
			continue
		}
		if sn == nil {
			if sn, err = store.Snapshot(ctx, domain); err != nil {
				return nil, err
			}
		}
		v, err := sn.Version(ctx, key)
		switch {
		case err == nil && v.Object == o.Key:
			continue // live
		case err != nil && !errors.Is(err, objstore.ErrNotFound):
			return nil, err
		}
		out = append(out, Attempt{Key: key, Token: token, FencedBy: fencedBy(recs, token, highest), Time: modified(o), Object: o.Key, Source: "version"})
	}
	return out, nil
}

// committed reports whether a commit in recs at token may have put key:
// it names key, or does not name all its keys.
func committed(recs []objstore.LogRecord, key string, token uint64) bool {
	for _, r := range recs {
		if r.Token == token && (r.Truncated || slices.Contains(r.PutKeys, key)) {
			return true
		}
	}
	return false
}

// fencedBy returns the first token above token in recs, else highest.
func fencedBy(recs []objstore.LogRecord, token, highest uint64) uint64 {
	for _, r := range recs {
		if r.Token > token {
			return r.Token
		}
	}
	return highest
}
