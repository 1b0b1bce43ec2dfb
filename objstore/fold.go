package objstore

import (
	"context"
	"maps"
	"slices"
	"sort"

	"golang.org/x/sync/errgroup"
)

// needsFold reports whether m's overlay has outgrown its bound.
func needsFold(m *Manifest) bool { return len(m.Keys) > overlayLimit }

// fold returns a copy of m whose overlay is merged into shards: it loads
// each shard the overlay touches, applies the overlay's puts and
// tombstones, splits shards that grew past maxShardKeys, and uploads the
// new shards under their content addresses. Untouched shards are reused
// as they are. The new shards are named for the commit attempt (token,
// attempt) that folds. The result has an empty overlay; m is not modified.
func (s *Store) fold(ctx context.Context, m *Manifest, token uint64, attempt string) (*Manifest, error) {
	refs := m.Shards
	if len(refs) == 0 {
		refs = []ShardRef{{Prefix: ""}} // one virtual, empty shard
	}
	// Group the overlay by shard.
	touched := make(map[int]map[string]Entry)
	for k, e := range m.Keys {
		i := shardIndex(refs, keyBits(k))
		if touched[i] == nil {
			touched[i] = make(map[string]Entry)
		}
		touched[i][k] = e
	}
	// Load, apply and split each touched shard, in parallel.
	results := make([][]*shardDoc, len(refs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.opts.UploadParallelism)
	for i, changes := range touched {
		g.Go(func() error {
			keys := map[string]Entry{}
			if refs[i].Object != "" {
				d, err := s.loadShard(gctx, m, refs[i])
				if err != nil {
					return err
				}
				maps.Copy(keys, d.Keys)
			}
			for k, e := range changes {
				if e.Deleted {
					delete(keys, k)
				} else {
					keys[k] = e
				}
			}
			results[i] = split(&shardDoc{Format: ShardFormatV1, Domain: m.Domain, Prefix: refs[i].Prefix, Keys: keys})
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Upload the new shards.
	var docs []*shardDoc
	for _, r := range results {
		docs = append(docs, r...)
	}
	newRefs := make([]ShardRef, len(docs))
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(s.opts.UploadParallelism)
	for i, d := range docs {
		g.Go(func() error {
			ref, err := s.putShard(gctx, d, token, attempt)
			newRefs[i] = ref
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, r := range refs {
		if _, ok := touched[i]; !ok {
			newRefs = append(newRefs, r)
		}
	}
	sort.Slice(newRefs, func(a, b int) bool { return newRefs[a].Prefix < newRefs[b].Prefix })
	n := m.clone()
	n.Keys = map[string]Entry{}
	n.Shards = newRefs
	return n, nil
}

// split divides d by the next key-hash bit until every part holds at most
// maxShardKeys keys (or the prefix reaches maxShardDepth).
func split(d *shardDoc) []*shardDoc {
	if len(d.Keys) <= maxShardKeys || len(d.Prefix) >= maxShardDepth {
		return []*shardDoc{d}
	}
	halves := [2]*shardDoc{
		{Format: ShardFormatV1, Domain: d.Domain, Prefix: d.Prefix + "0", Keys: map[string]Entry{}},
		{Format: ShardFormatV1, Domain: d.Domain, Prefix: d.Prefix + "1", Keys: map[string]Entry{}},
	}
	for k, e := range d.Keys {
		bit := keyBits(k)[len(d.Prefix)] - '0'
		halves[bit].Keys[k] = e
	}
	return slices.Concat(split(halves[0]), split(halves[1]))
}
