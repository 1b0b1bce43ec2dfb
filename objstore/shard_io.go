package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/fencedstore/fence/internal/backoff"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// Large domains keep their keys in shards (format.Shard); this file reads
// and writes them. A shard's name holds the SHA-256 of its bytes, so its
// bytes never change.

// shardCache keeps decoded shards by object key. A shard's bytes never
// change (its name holds their SHA-256), so a cached shard never goes
// stale; but it is checked again, every time, against the reference of
// the manifest that names it (see format.CheckShardRef). Bounded by count.
type shardCache struct {
	mu sync.Mutex
	m  map[string]*format.Shard
}

const maxCachedShards = 1024

func (c *shardCache) get(object string) (*format.Shard, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[object]
	return d, ok
}

func (c *shardCache) put(object string, d *format.Shard) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*format.Shard)
	}
	if len(c.m) >= maxCachedShards {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[object] = d
}

// loadShard reads, verifies and decodes one shard of domain's manifest m.
// Anything it cannot trust is a *CorruptManifestError naming the shard.
func (s *Store) loadShard(ctx context.Context, m *format.Manifest, ref format.ShardRef) (*format.Shard, error) {
	if d, ok := s.shards.get(ref.Object); ok {
		if err := format.CheckShardRef(m, ref, d); err != nil {
			return nil, corrupt(err)
		}
		return d, nil
	}
	bad := func(reason string, err error) error {
		return &CorruptManifestError{Key: ref.Object, Reason: "shard: " + reason, Err: err}
	}
	var data []byte
	bo := new(backoff.Backoff)
	for {
		rc, _, err := s.b.Get(ctx, ref.Object, driver.GetOptions{})
		if err == nil {
			data, err = io.ReadAll(io.LimitReader(rc, format.MaxManifestSize+1))
			rc.Close()
		}
		if errors.Is(err, ErrNotFound) {
			return nil, bad("missing (the manifest names it)", err)
		}
		if err == nil {
			break
		}
		if !transient(ctx, err) {
			return nil, fmt.Errorf("objstore: read shard %q: %w", ref.Object, err)
		}
		if werr := bo.Wait(ctx); werr != nil {
			return nil, fmt.Errorf("objstore: read shard %q: %w (last error: %w)", ref.Object, werr, err)
		}
	}
	d, err := format.DecodeShard(m, ref, data)
	if err != nil {
		return nil, corrupt(err)
	}
	s.shards.put(ref.Object, d)
	return d, nil
}

// putShard uploads a shard written by the commit attempt at token. Its
// name is unique to that attempt and holds the SHA-256 of its bytes, so an
// existing object at that key was written by this same attempt (an SDK's
// retry of our own write, or an earlier fold of the attempt that built the
// same bytes) and holds the same bytes: 412 is success. Garbage
// collection never deletes it while the attempt can still land (see
// Collect).
func (s *Store) putShard(ctx context.Context, d *format.Shard, token uint64, attempt string) (format.ShardRef, error) {
	data, ref, err := format.EncodeShard(d, token, attempt)
	if err != nil {
		return format.ShardRef{}, fmt.Errorf("objstore: %w", err)
	}
	if err := s.putOwn(ctx, ref.Object, data, "application/json"); err != nil {
		return format.ShardRef{}, fmt.Errorf("objstore: write shard %q: %w", ref.Object, err)
	}
	s.shards.put(ref.Object, d)
	return ref, nil
}

// putOwn writes data to key, a name of one commit attempt's own that
// also carries the SHA-256 of data (a shard or a pack), retrying what a
// retry may fix. An object already there under that name is this
// attempt's earlier write of the same bytes, whose reply was lost.
func (s *Store) putOwn(ctx context.Context, key string, data []byte, contentType string) error {
	bo := new(backoff.Backoff)
	for {
		_, err := s.b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), driver.PutOptions{Mode: driver.Create{}, ContentType: contentType})
		if err == nil || errors.Is(err, driver.ErrPreconditionFailed) {
			return nil
		}
		if !transient(ctx, err) && !errors.Is(err, driver.ErrConflict) {
			return err
		}
		if werr := bo.Wait(ctx); werr != nil {
			return fmt.Errorf("%w (last error: %w)", werr, err)
		}
	}
}
