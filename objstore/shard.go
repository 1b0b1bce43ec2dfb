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
	"strconv"
	"strings"
	"sync"

	"github.com/fencedstore/fence/internal/backoff"
	"github.com/fencedstore/fence/objstore/driver"
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
	// maxToken is the highest token of any key, for checkShardRef.
	maxToken uint64
}

// shardObject returns the object key of a shard with content data,
// written by the commit attempt at token: <domain>/_fence/s/<20-digit
// token>-<attempt>-<sha256>.json. The SHA-256 lets a reader verify the
// shard by its name; the token and attempt make the name unique to one
// commit attempt, so a name never recurs after garbage collection has
// deleted it (a content address alone would: a fold that happens to
// rebuild an old shard's bytes would take the old, doomed object for its
// own).
func shardObject(domain string, token uint64, attempt string, data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%s%s%0*d-%s-%s.json", domain, shardDir, tokenDigits, token, attempt, hex.EncodeToString(sum[:]))
}

// shardName is a parsed shard object key.
type shardName struct {
	token   uint64 // 0 for a legacy, content-addressed name
	attempt string // "" for a legacy name
	sum     string // hex SHA-256 of the content
}

// parseShardObject parses a shard object key of domain: the current form
// (see shardObject), or the legacy form <domain>/_fence/s/<sha256>.json.
func parseShardObject(domain, object string) (shardName, bool) {
	name, ok := strings.CutPrefix(object, domain+shardDir)
	if !ok {
		return shardName{}, false
	}
	name, ok = strings.CutSuffix(name, ".json")
	if !ok {
		return shardName{}, false
	}
	var n shardName
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		head := name[:i]
		n.sum, name = name[i+1:], head
		if len(head) < tokenDigits+2 || head[tokenDigits] != '-' {
			return shardName{}, false
		}
		tok, err := strconv.ParseUint(head[:tokenDigits], 10, 64)
		if err != nil || ValidateToken(tok) != nil || strings.Trim(head[:tokenDigits], "0123456789") != "" {
			return shardName{}, false
		}
		n.token, n.attempt = tok, head[tokenDigits+1:]
		if validSuffix(n.attempt) != "" {
			return shardName{}, false
		}
	} else {
		n.sum = name
	}
	if raw, err := hex.DecodeString(n.sum); err != nil || len(raw) != 32 || strings.ToLower(n.sum) != n.sum {
		return shardName{}, false
	}
	return n, true
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
		if _, ok := parseShardObject(domain, r.Object); !ok {
			return fmt.Sprintf("shard object %q is not %s<token>-<attempt>-<sha256>.json", r.Object, domain+shardDir)
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

// shardCache keeps decoded shards by object key. A shard's bytes never
// change (its name holds their SHA-256), so a cached shard never goes
// stale; but it is checked again, every time, against the reference of
// the manifest that names it (see checkShardRef). Bounded by count.
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
		if err := checkShardRef(m, ref, d); err != nil {
			return nil, err
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
			return nil, fmt.Errorf("objstore: read shard %q: %w (last error: %w)", ref.Object, werr, err)
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
	name, _ := parseShardObject(m.Domain, ref.Object)
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != name.sum {
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
	}
	for k, e := range d.Keys {
		if reason, err := checkEntry(m.Domain, MaxToken, k, e); reason != "" {
			return nil, bad(reason, err)
		}
		d.maxToken = max(d.maxToken, e.Token)
		if e.Deleted {
			return nil, bad(fmt.Sprintf("key %q is a tombstone", k), nil)
		}
		if !strings.HasPrefix(keyBits(k), d.Prefix) {
			return nil, bad(fmt.Sprintf("key %q does not belong to prefix %q", k, d.Prefix), nil)
		}
	}
	if err := checkShardRef(m, ref, d); err != nil {
		return nil, err
	}
	return d, nil
}

// checkShardRef checks a decoded shard against the reference to it in
// manifest m: same domain, prefix and count, and no entry above the
// manifest's highest token. It runs on every use, cached or not, so a
// manifest that names a shard wrongly is refused however the shard was
// obtained.
func checkShardRef(m *Manifest, ref ShardRef, d *shardDoc) error {
	bad := func(reason string) error {
		return &CorruptManifestError{Key: ref.Object, Reason: "shard: " + reason}
	}
	switch {
	case d.Domain != m.Domain:
		return bad(fmt.Sprintf("records domain %q, expected %q", d.Domain, m.Domain))
	case d.Prefix != ref.Prefix || len(d.Keys) != ref.Count:
		return bad(fmt.Sprintf("holds prefix %q with %d keys, the manifest says %q with %d", d.Prefix, len(d.Keys), ref.Prefix, ref.Count))
	case d.maxToken > m.Highest:
		return bad(fmt.Sprintf("holds a key at token %d, above the manifest's highest_token %d", d.maxToken, m.Highest))
	}
	return nil
}

// encodeShard returns a shard's canonical encoding.
func encodeShard(d *shardDoc) ([]byte, error) {
	data, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("objstore: encode shard %q of %q: %w", d.Prefix, d.Domain, err)
	}
	return append(data, '\n'), nil
}

// putShard uploads a shard written by the commit attempt at token. Its
// name is unique to that attempt and holds the SHA-256 of its bytes, so an
// existing object at that key was written by this same attempt (an SDK's
// retry of our own write, or an earlier fold of the attempt that built the
// same bytes) and holds the same bytes: 412 is success. Garbage
// collection never deletes it while the attempt can still land (see
// Collect).
func (s *Store) putShard(ctx context.Context, d *shardDoc, token uint64, attempt string) (ShardRef, error) {
	data, err := encodeShard(d)
	if err != nil {
		return ShardRef{}, err
	}
	for _, e := range d.Keys {
		d.maxToken = max(d.maxToken, e.Token)
	}
	ref := ShardRef{Prefix: d.Prefix, Object: shardObject(d.Domain, token, attempt, data), Count: len(d.Keys)}
	bo := new(backoff.Backoff)
	for {
		_, err := s.b.Put(ctx, ref.Object, bytes.NewReader(data), int64(len(data)), driver.PutOptions{Mode: driver.Create{}, ContentType: "application/json"})
		if err == nil || errors.Is(err, driver.ErrPreconditionFailed) {
			s.shards.put(ref.Object, d)
			return ref, nil
		}
		if !transient(ctx, err) && !errors.Is(err, driver.ErrConflict) {
			return ShardRef{}, fmt.Errorf("objstore: write shard %q: %w", ref.Object, err)
		}
		if werr := bo.Wait(ctx); werr != nil {
			return ShardRef{}, fmt.Errorf("objstore: write shard %q: %w (last error: %w)", ref.Object, werr, err)
		}
	}
}
