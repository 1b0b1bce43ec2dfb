package objstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/fencedstore/fence/internal/backoff"
)

// Large domains keep their keys in shards: immutable, content-addressed
// objects, each holding the keys whose SHA-256 starts with one bit prefix.
// The manifest names the shards and keeps the most recent changes inline
// (an overlay, with tombstones for deletes), so a commit rewrites the small
// manifest only, and folds the overlay into the shards it touches once the
// overlay grows past a bound. A commit's cost no longer grows with the size
// of the domain. See docs/manifest.md.

const (
	// ShardFormatV1 is the format tag of shard objects.
	ShardFormatV1 = "fence.shard/v1"
	shardDir      = systemDir + "s/"
	// overlayLimit is the number of inline changes past which a commit
	// folds the overlay into shards.
	overlayLimit = 256
	// maxShardKeys is the size past which a shard splits in two.
	maxShardKeys = 512
	// maxShardDepth bounds the bit prefixes (2^24 shards).
	maxShardDepth = 24
)

// ShardRef names one shard of a manifest.
type ShardRef struct {
	// Prefix is the bit string ("", "0", "01", ...) that the SHA-256 of
	// every key in the shard starts with.
	Prefix string `json:"prefix"`
	// Object is the shard's object key, <domain>/_fence/s/<sha256>.json,
	// named by the SHA-256 of its content.
	Object string `json:"object"`
	// Count is the number of keys in the shard.
	Count int `json:"count"`
}

// shardDoc is the content of a shard object.
type shardDoc struct {
	Format string           `json:"format"`
	Domain string           `json:"domain"`
	Prefix string           `json:"prefix"`
	Keys   map[string]Entry `json:"keys"`
}

// shardObject returns the object key of a shard with content data.
func shardObject(domain string, data []byte) string {
	sum := sha256.Sum256(data)
	return domain + shardDir + hex.EncodeToString(sum[:]) + ".json"
}

// keyBits returns the first maxShardDepth bits of SHA-256(key) as '0'/'1'.
func keyBits(key string) string {
	sum := sha256.Sum256([]byte(key))
	var b strings.Builder
	b.Grow(maxShardDepth)
	for i := range maxShardDepth {
		if sum[i/8]&(0x80>>(i%8)) != 0 {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

// shardIndex returns the index of the shard in refs that holds a key with
// the given bits, or -1 (only for a manifest with no shards).
func shardIndex(refs []ShardRef, bits string) int {
	for i, r := range refs {
		if strings.HasPrefix(bits, r.Prefix) {
			return i
		}
	}
	return -1
}

// validateShardRefs checks that refs partition the key space: bit-string
// prefixes, none a prefix of another, covering every key exactly once.
func validateShardRefs(domain string, refs []ShardRef) string {
	if len(refs) == 0 {
		return ""
	}
	var total uint64
	seen := make(map[string]bool, len(refs))
	for _, r := range refs {
		if len(r.Prefix) > maxShardDepth || strings.Trim(r.Prefix, "01") != "" {
			return fmt.Sprintf("shard prefix %q is not a bit string of at most %d bits", r.Prefix, maxShardDepth)
		}
		if seen[r.Prefix] {
			return fmt.Sprintf("shard prefix %q appears twice", r.Prefix)
		}
		seen[r.Prefix] = true
		name, ok := strings.CutPrefix(r.Object, domain+shardDir)
		hexSum, isJSON := strings.CutSuffix(name, ".json")
		if raw, err := hex.DecodeString(hexSum); !ok || !isJSON || err != nil || len(raw) != 32 {
			return fmt.Sprintf("shard object %q is not %s<sha256>.json", r.Object, domain+shardDir)
		}
		if r.Count < 0 {
			return fmt.Sprintf("shard %q has a negative count", r.Prefix)
		}
		total += 1 << (maxShardDepth - len(r.Prefix))
	}
	for p := range seen {
		for q := p; q != ""; {
			q = q[:len(q)-1]
			if seen[q] {
				return fmt.Sprintf("shard prefix %q lies inside shard prefix %q", p, q)
			}
		}
	}
	if total != 1<<maxShardDepth {
		return "shard prefixes do not cover every key exactly once"
	}
	return ""
}

// shardCache keeps decoded shards by object key. Shards are immutable, so
// entries never go stale; the cache is bounded by count.
type shardCache struct {
	mu sync.Mutex
	m  map[string]*shardDoc
}

const maxCachedShards = 1024

func (c *shardCache) get(object string) (*shardDoc, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[object]
	return d, ok
}

func (c *shardCache) put(object string, d *shardDoc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*shardDoc)
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
func (s *Store) loadShard(ctx context.Context, m *Manifest, ref ShardRef) (*shardDoc, error) {
	if d, ok := s.shards.get(ref.Object); ok {
		return d, nil
	}
	bad := func(reason string, err error) error {
		return &CorruptManifestError{Key: ref.Object, Reason: "shard: " + reason, Err: err}
	}
	var data []byte
	bo := new(backoff.Backoff)
	for {
		rc, _, err := s.b.Get(ctx, ref.Object)
		if err == nil {
			data, err = io.ReadAll(io.LimitReader(rc, maxManifestSize+1))
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
			return nil, fmt.Errorf("objstore: read shard %q: %w (last error: %v)", ref.Object, werr, err)
		}
	}
	d, err := decodeShard(m, ref, data)
	if err != nil {
		return nil, err
	}
	s.shards.put(ref.Object, d)
	return d, nil
}

// decodeShard checks and decodes data, read from the shard ref of domain's
// manifest m. Anything it cannot trust is a *CorruptManifestError naming
// the shard.
func decodeShard(m *Manifest, ref ShardRef, data []byte) (*shardDoc, error) {
	bad := func(reason string, err error) error {
		return &CorruptManifestError{Key: ref.Object, Reason: "shard: " + reason, Err: err}
	}
	if shardObject(m.Domain, data) != ref.Object {
		return nil, bad("content does not match the SHA-256 in its name", nil)
	}
	d := new(shardDoc)
	if err := json.Unmarshal(data, d); err != nil {
		return nil, bad("not JSON", err)
	}
	switch {
	case d.Format != ShardFormatV1:
		return nil, bad(fmt.Sprintf("unknown format %q", d.Format), nil)
	case d.Domain != m.Domain:
		return nil, bad(fmt.Sprintf("records domain %q, expected %q", d.Domain, m.Domain), nil)
	case d.Prefix != ref.Prefix || len(d.Keys) != ref.Count:
		return nil, bad(fmt.Sprintf("holds prefix %q with %d keys, the manifest says %q with %d", d.Prefix, len(d.Keys), ref.Prefix, ref.Count), nil)
	}
	for k, e := range d.Keys {
		if reason, err := checkEntry(m.Domain, m.Highest, k, e); reason != "" {
			return nil, bad(reason, err)
		}
		if e.Deleted {
			return nil, bad(fmt.Sprintf("key %q is a tombstone", k), nil)
		}
		if !strings.HasPrefix(keyBits(k), d.Prefix) {
			return nil, bad(fmt.Sprintf("key %q does not belong to prefix %q", k, d.Prefix), nil)
		}
	}
	return d, nil
}

// encodeShard returns a shard's canonical encoding.
func encodeShard(d *shardDoc) ([]byte, error) {
	data, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("objstore: encode shard %q of %q: %w", d.Prefix, d.Domain, err)
	}
	return append(data, '\n'), nil
}

// putShard uploads a shard under its content address. An existing object
// at that key holds the same bytes, so 412 is success.
func (s *Store) putShard(ctx context.Context, d *shardDoc) (ShardRef, error) {
	data, err := encodeShard(d)
	if err != nil {
		return ShardRef{}, err
	}
	ref := ShardRef{Prefix: d.Prefix, Object: shardObject(d.Domain, data), Count: len(d.Keys)}
	bo := new(backoff.Backoff)
	for {
		_, err := s.b.Put(ctx, ref.Object, bytes.NewReader(data), int64(len(data)), PutOptions{IfNoneMatch: true, ContentType: "application/json"})
		if err == nil || errors.Is(err, ErrPreconditionFailed) {
			s.shards.put(ref.Object, d)
			return ref, nil
		}
		if !transient(ctx, err) && !errors.Is(err, ErrConflict) {
			return ShardRef{}, fmt.Errorf("objstore: write shard %q: %w", ref.Object, err)
		}
		if werr := bo.Wait(ctx); werr != nil {
			return ShardRef{}, fmt.Errorf("objstore: write shard %q: %w (last error: %v)", ref.Object, werr, err)
		}
	}
}
