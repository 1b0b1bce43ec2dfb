package objstore

import (
	"context"
	"fmt"
	"time"
)

// CollectResult counts what Collect found.
type CollectResult struct {
	Scanned int `json:"scanned"` // version objects seen
	Live    int `json:"live"`    // named by the manifest
	Deleted int `json:"deleted"`
	Kept    int `json:"kept"` // unnamed but inside the grace period
}

// Collect deletes domain's versions that the manifest no longer names and
// that no reader can still need. A version is deleted only when it was
// uploaded more than grace ago, and it has been unreferenced for more than
// grace: its key's current version was committed more than grace ago, or,
// for a key that is no longer live, the domain's last commit was. Readers
// that take longer than grace between reading the manifest and reading a
// version may then find it gone (ErrNotFound); pick grace above your
// slowest reader. Collect needs no lease: deleting an unnamed version is
// safe even if a stale writer recreates it, since a version below the
// domain's highest token can never be committed again.
//
// Deletes are unconditional: S3-compatible stores such as MinIO ignore
// If-Match on DELETE, so nothing here relies on it.
func (s *Store) Collect(ctx context.Context, domain string, grace time.Duration) (CollectResult, error) {
	var res CollectResult
	if grace < 0 {
		return res, &InvalidError{What: "grace", Value: grace.String(), Reason: "negative"}
	}
	ctx, cancel := s.withDeadline(ctx)
	defer cancel()
	sn, err := s.Snapshot(ctx, domain)
	if err != nil {
		return res, err
	}
	m := sn.m
	versions, err := sn.List(ctx)
	if err != nil {
		return res, err
	}
	live := make(map[string]bool, len(versions)+len(m.Shards))
	byKey := make(map[string]Version, len(versions))
	for _, v := range versions {
		live[v.Object] = true
		byKey[v.Key] = v
	}
	for _, r := range m.Shards {
		live[r.Object] = true
	}
	cutoff := s.opts.Now().Add(-grace)
	var doomed []string
	err = s.b.List(ctx, VersionPrefix(domain), func(o ObjectInfo) error {
		res.Scanned++
		if live[o.Key] {
			res.Live++
			return nil
		}
		_, key, _, _, perr := ParseVersionKey(o.Key)
		if perr != nil {
			res.Kept++ // not ours to judge
			return nil
		}
		unreferencedSince := m.Last.Time
		if v, ok := byKey[key]; ok {
			unreferencedSince = v.Committed
		}
		if o.Modified.Before(cutoff) && unreferencedSince.Before(cutoff) {
			doomed = append(doomed, o.Key)
		} else {
			res.Kept++
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("objstore: collect %q: list versions: %w", domain, err)
	}
	// Shards the manifest no longer names were replaced by a fold no later
	// than its last commit.
	err = s.b.List(ctx, domain+shardDir, func(o ObjectInfo) error {
		res.Scanned++
		switch {
		case live[o.Key]:
			res.Live++
		case o.Modified.Before(cutoff) && m.Last.Time.Before(cutoff):
			doomed = append(doomed, o.Key)
		default:
			res.Kept++
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("objstore: collect %q: list shards: %w", domain, err)
	}
	for _, k := range doomed {
		if err := s.b.Delete(ctx, k); err != nil {
			return res, fmt.Errorf("objstore: collect %q: delete %q: %w", domain, k, err)
		}
		res.Deleted++
	}
	return res, nil
}
