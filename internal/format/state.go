package format

import (
	"context"
	"fmt"
	"maps"
	"sort"

	"golang.org/x/sync/errgroup"
)

// ShardLoader returns the shard that ref names in manifest m, verified
// (DecodeShard) and checked against ref (CheckShardRef).
type ShardLoader func(ctx context.Context, m *Manifest, ref ShardRef) (*Shard, error)

// ShardWriter stores a new shard written by the commit attempt at token
// and returns the reference that names it (EncodeShard).
type ShardWriter func(ctx context.Context, d *Shard) (ShardRef, error)

// State is one manifest of a domain with the shards it names. It is the
// one answer to "which version does this key have": the manifest's
// overlay first, then the shard that holds the key.
type State struct {
	M *Manifest
	// Load reads a shard that M names. Parallel bounds how many at once.
	Load     ShardLoader
	Parallel int
}

// Lookup returns key's entry. ok is false when the key is not live.
func (s State) Lookup(ctx context.Context, key string) (e Entry, ok bool, err error) {
	if e, ok, decided := s.M.Overlay(key); decided {
		return e, ok, nil
	}
	d, err := s.Load(ctx, s.M, s.M.Shards[ShardIndex(s.M.Shards, key)])
	if err != nil {
		return Entry{}, false, err
	}
	e, ok = d.Keys[key]
	return e, ok, nil
}

// Live returns every live key's entry: the shards', with the overlay's
// puts and tombstones applied on top.
func (s State) Live(ctx context.Context) (map[string]Entry, error) {
	m := s.M
	all := make(map[string]Entry, len(m.Keys))
	if len(m.Shards) > 0 {
		docs := make([]*Shard, len(m.Shards))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(max(s.Parallel, 1))
		for i, ref := range m.Shards {
			g.Go(func() error {
				d, err := s.Load(gctx, m, ref)
				docs[i] = d
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		for _, d := range docs {
			maps.Copy(all, d.Keys)
		}
	}
	for k, e := range m.Keys {
		if e.Deleted {
			delete(all, k)
		} else {
			all[k] = e
		}
	}
	return all, nil
}

// Fold returns a copy of s.M whose overlay is merged into shards: it
// loads each shard the overlay touches, applies the overlay's puts and
// tombstones, splits shards that grew past MaxShardKeys, and stores the
// new shards with write. Untouched shards are reused as they are. The
// result has an empty overlay; s.M is not modified.
func (s State) Fold(ctx context.Context, write ShardWriter) (*Manifest, error) {
	m := s.M
	if m.HasInline() {
		return nil, fmt.Errorf("fold manifest of %q: its overlay holds inline values, which shards never do: move them to their version objects first", m.Domain)
	}
	refs := m.Shards
	if len(refs) == 0 {
		refs = []ShardRef{{Prefix: ""}} // one virtual, empty shard
	}
	// Group the overlay by shard.
	touched := make(map[int]map[string]Entry)
	for k, e := range m.Keys {
		i := ShardIndex(refs, k)
		if touched[i] == nil {
			touched[i] = make(map[string]Entry)
		}
		touched[i][k] = e
	}
	// Load, apply and split each touched shard, in parallel.
	results := make([][]*Shard, len(refs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(s.Parallel, 1))
	for i, changes := range touched {
		g.Go(func() error {
			keys := map[string]Entry{}
			if refs[i].Object != "" {
				d, err := s.Load(gctx, m, refs[i])
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
			results[i] = Split(&Shard{Format: ShardV1, Domain: m.Domain, Prefix: refs[i].Prefix, Keys: keys})
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// Store the new shards.
	var docs []*Shard
	for _, r := range results {
		docs = append(docs, r...)
	}
	newRefs := make([]ShardRef, len(docs))
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(max(s.Parallel, 1))
	for i, d := range docs {
		g.Go(func() error {
			ref, err := write(gctx, d)
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
	n := m.Clone()
	n.Keys = map[string]Entry{}
	n.Shards = newRefs
	return n, nil
}
