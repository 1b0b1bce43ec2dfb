package serve

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// Attempt is a fenced write: a version object a holder uploaded with a
// token below the domain's highest, which no commit published. It is
// what a stale holder leaves behind when the store rejects its commit
// (until fence gc removes it). A fenced commit of values small enough to
// be kept in the manifest (objstore.Options.InlineMax) uploads nothing
// and leaves no trace in the store: its holder's error and logs are the
// only record of it.
type Attempt struct {
	Key   string `json:"key"`
	Token uint64 `json:"token"`
	// FencedBy is the token that rejected it: the first token above it
	// in the domain's log, else the domain's highest.
	FencedBy uint64    `json:"fenced_by"`
	Time     time.Time `json:"time"` // the upload, by the store's clock
	Object   string    `json:"object"`
}

// fencedAttempts finds the fenced attempts among versions, domain's
// version objects. recs is the domain's log and highest its highest
// token. Only versions uploaded since the log's first record are
// examined: an older one may be a value a later commit replaced.
func fencedAttempts(ctx context.Context, store *objstore.Store, domain string, recs []objstore.LogRecord, highest uint64, versions []driver.ObjectInfo) ([]Attempt, error) {
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
		out = append(out, Attempt{Key: key, Token: token, FencedBy: fencedBy(recs, token, highest), Time: modified(o), Object: o.Key})
	}
	slices.SortFunc(out, func(a, b Attempt) int { return a.Time.Compare(b.Time) })
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
