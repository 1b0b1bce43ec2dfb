package objstore

import (
	"context"
	"fmt"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/observe"
)

// CollectResult counts what Collect found.
type CollectResult struct {
	Scanned int `json:"scanned"` // version, shard and pack objects seen
	Live    int `json:"live"`    // named by the manifest
	Deleted int `json:"deleted"`
	// DeletedBytes is the size of the objects deleted.
	DeletedBytes int64 `json:"deleted_bytes"`
	// Pending counts unnamed objects that a commit in progress, or a
	// retry, could still publish: kept until the domain's highest token
	// passes them or their attempt lands.
	Pending int `json:"pending"`
	Kept    int `json:"kept"` // collectable, but inside the grace period (or not fence's)
	// FencedRecords counts the fenced-attempt records seen (see
	// Store.FencedAttempts), FencedDeleted those deleted: the others
	// are inside the grace period. Neither is in the counts above.
	FencedRecords int `json:"fenced_records"`
	FencedDeleted int `json:"fenced_deleted"`
}

// Collect deletes domain's version, shard and pack objects that the manifest
// no longer names and that no commit can ever name again, and its
// fenced-attempt records (see FencedAttempts) once grace has passed since
// the store stored them: no commit reads those. Safety rests on
// two facts about the manifest M that Collect reads, and on no clock:
//
//   - an object written at a token below M's highest token can never be
//     published: the write that would publish it is based on a manifest
//     older than M, so its If-Match fails, and on every later manifest
//     the token is fenced;
//   - an object whose commit attempt is in M's log was written by an
//     attempt that landed, and an attempt writes no manifest after it
//     has landed; since every attempt writes under a name of its own
//     (retries included), no other commit can publish that object.
//
// Every other unnamed object (one at the current token or above, written
// by an attempt that has not landed) is pending: a commit in progress may
// still publish it, so it stays, whatever its age. docs/design.md has the
// argument in full.
//
// grace protects only readers: an object that is safe to delete is kept
// until grace has passed since the commit that stopped naming it (by the
// writer's clock, compared with Collect's: clock skew can only make a slow
// reader find a version gone, ErrNotFound, never lose a commit). Collect
// needs no lease, and runs safely beside writers. It never deletes the
// manifest, the lease record or the domain's floor marker, and writes the
// floor marker if it is missing.
//
// Deletes are unconditional: S3-compatible stores such as MinIO ignore
// If-Match on DELETE, so nothing here relies on it.
func (s *Store) Collect(ctx context.Context, domain string, grace time.Duration) (CollectResult, error) {
	start := time.Now()
	res, err := s.collect(ctx, domain, grace)
	if o := s.opts.Observer; o != nil {
		o.Collect(ctx, observe.Collect{Domain: domain, Deleted: res.Deleted, DeletedBytes: res.DeletedBytes, Scanned: res.Scanned, Live: res.Live, Pending: res.Pending, Kept: res.Kept, Err: err, Duration: time.Since(start)})
	}
	return res, err
}

func (s *Store) collect(ctx context.Context, domain string, grace time.Duration) (CollectResult, error) {
	var res CollectResult
	if grace < 0 {
		return res, &InvalidError{What: "grace", Value: grace.String(), Reason: "negative"}
	}
	sn, err := s.Snapshot(ctx, domain)
	if err != nil {
		return res, err
	}
	// Collect writes (the floor marker, with Create) and deletes: prove
	// the backend honours conditional writes first, as a commit does.
	if err := s.probe(ctx); err != nil {
		return res, err
	}
	m := sn.m
	if err := s.ensureFloor(ctx, m); err != nil {
		return res, err
	}
	versions, err := sn.List(ctx, nil)
	if err != nil {
		return res, err
	}
	live := make(map[string]bool, len(versions)+len(m.Shards))
	byKey := make(map[string]Version, len(versions))
	for _, v := range versions {
		live[v.Object] = true
		if v.Pack != "" {
			live[v.Pack] = true
		}
		byKey[v.Key] = v
	}
	for _, r := range m.Shards {
		live[r.Object] = true
	}
	landed := make(map[string]bool, len(m.Log))
	for _, e := range m.Log {
		landed[e.AttemptID()] = true
	}
	// dead reports whether no commit can ever publish an object written
	// by attempt at token.
	dead := func(token uint64, attempt string) bool { return token < m.Highest || landed[attempt] }
	cutoff := s.opts.Now().Add(-grace)
	var doomed []driver.ObjectInfo
	judge := func(o driver.ObjectInfo, isDead bool, unreferencedSince time.Time) {
		switch {
		case !isDead:
			res.Pending++
		case grace > 0 && !unreferencedSince.Before(cutoff):
			res.Kept++
		default:
			doomed = append(doomed, o)
		}
	}
	err = s.b.List(ctx, format.VersionPrefix(domain), func(o driver.ObjectInfo) error {
		res.Scanned++
		if live[o.Key] {
			res.Live++
			return nil
		}
		_, key, token, attempt, perr := format.ParseVersionKey(o.Key)
		if perr != nil {
			res.Kept++ // not ours to judge
			return nil
		}
		unreferencedSince := m.Last.Time
		if v, ok := byKey[key]; ok {
			unreferencedSince = v.Committed
		}
		judge(o, dead(token, attempt), unreferencedSince)
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("objstore: collect %q: list versions: %w", domain, err)
	}
	err = s.b.List(ctx, format.ShardPrefix(domain), func(o driver.ObjectInfo) error {
		res.Scanned++
		if live[o.Key] {
			res.Live++
			return nil
		}
		n, ok := format.ParseShardObject(domain, o.Key)
		switch {
		case !ok:
			res.Kept++
		case n.Attempt == "":
			// A legacy, content-addressed shard: this build never writes
			// one, so once unnamed it is never named again.
			judge(o, true, m.Last.Time)
		default:
			judge(o, dead(n.Token, n.Attempt), m.Last.Time)
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("objstore: collect %q: list shards: %w", domain, err)
	}
	records, err := s.oldFenced(ctx, domain, cutoff, grace, &res)
	if err != nil {
		return res, err
	}
	// A pack is judged as a shard is: it is named for the commit attempt
	// that wrote it, and only that attempt's manifest writes name it.
	err = s.b.List(ctx, format.PackPrefix(domain), func(o driver.ObjectInfo) error {
		res.Scanned++
		if live[o.Key] {
			res.Live++
			return nil
		}
		if n, ok := format.ParsePackObject(domain, o.Key); ok {
			judge(o, dead(n.Token, n.Attempt), m.Last.Time)
		} else {
			res.Kept++
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("objstore: collect %q: list packs: %w", domain, err)
	}
	for _, o := range doomed {
		if err := s.b.Delete(ctx, o.Key); err != nil {
			return res, fmt.Errorf("objstore: collect %q: delete %q: %w", domain, o.Key, err)
		}
		res.Deleted++
		res.DeletedBytes += o.Size
	}
	for _, o := range records {
		if err := s.b.Delete(ctx, o.Key); err != nil {
			return res, fmt.Errorf("objstore: collect %q: delete fenced-attempt record %q: %w", domain, o.Key, err)
		}
		res.FencedDeleted++
	}
	return res, nil
}
