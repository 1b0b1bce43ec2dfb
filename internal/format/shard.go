package format

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fencedstore/fence/rules"
)

// Large domains keep their keys in shards: immutable objects, each
// holding the keys whose SHA-256 starts with one bit prefix. The manifest
// names the shards and keeps the most recent changes inline (an overlay,
// with tombstones for deletes), so a commit rewrites the small manifest
// only, and folds the overlay into the shards it touches once the overlay
// grows past a bound. A commit's cost no longer grows with the size of the
// domain. See docs/manifest.md.

const (
	// ShardV1 is the format tag of shard objects; ShardV2 that of a
	// shard holding a value in a pack (see PackObject), which builds
	// that read only v1 refuse.
	ShardV1 = "fence.shard/v1"
	ShardV2 = "fence.shard/v2"
	// OverlayLimit is the number of inline changes past which a commit
	// folds the overlay into shards.
	OverlayLimit = 256
	// MaxShardKeys is the size past which a shard splits in two.
	MaxShardKeys = 512
	// MaxShardDepth bounds the bit prefixes (2^24 shards).
	MaxShardDepth = 24
)

// ShardRef names one shard of a manifest.
type ShardRef struct {
	// Prefix is the bit string ("", "0", "01", ...) that the SHA-256 of
	// every key in the shard starts with.
	Prefix string `json:"prefix"`
	// Object is the shard's object key (see ShardObject).
	Object string `json:"object"`
	// Count is the number of keys in the shard.
	Count int `json:"count"`
	// Packed is set when the shard holds a value in a pack: a manifest
	// that names such a shard is format v4.
	Packed bool `json:"packed,omitempty"`
}

// Shard is the content of a shard object.
type Shard struct {
	Format string           `json:"format"`
	Domain string           `json:"domain"`
	Prefix string           `json:"prefix"`
	Keys   map[string]Entry `json:"keys"`
	// maxToken is the highest token of any key, for CheckShardRef.
	maxToken uint64
}

// ShardObject returns the object key of a shard with content data,
// written by the commit attempt at token: <domain>/_fence/s/<20-digit
// token>-<attempt>-<sha256>.json. The SHA-256 lets a reader verify the
// shard by its name; the token and attempt make the name unique to one
// commit attempt, so a name never recurs after garbage collection has
// deleted it (a content address alone would: a fold that happens to
// rebuild an old shard's bytes would take the old, doomed object for its
// own).
func ShardObject(domain string, token uint64, attempt string, data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%s%s%0*d-%s-%s.json", domain, shardDir, tokenDigits, token, attempt, hex.EncodeToString(sum[:]))
}

// ShardName is a parsed shard object key.
type ShardName struct {
	Token   uint64 // 0 for a legacy, content-addressed name
	Attempt string // "" for a legacy name
	Sum     string // hex SHA-256 of the content
}

// ParseShardObject parses a shard object key of domain: the current form
// (see ShardObject), or the legacy form <domain>/_fence/s/<sha256>.json.
func ParseShardObject(domain, object string) (ShardName, bool) {
	name, ok := strings.CutPrefix(object, domain+shardDir)
	if !ok {
		return ShardName{}, false
	}
	name, ok = strings.CutSuffix(name, ".json")
	if !ok {
		return ShardName{}, false
	}
	var n ShardName
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		head := name[:i]
		n.Sum = name[i+1:]
		if len(head) < tokenDigits+2 || head[tokenDigits] != '-' {
			return ShardName{}, false
		}
		tok, err := strconv.ParseUint(head[:tokenDigits], 10, 64)
		if err != nil || rules.ValidateToken(tok) != nil || strings.Trim(head[:tokenDigits], "0123456789") != "" {
			return ShardName{}, false
		}
		n.Token, n.Attempt = tok, head[tokenDigits+1:]
		if ValidSuffix(n.Attempt) != "" {
			return ShardName{}, false
		}
	} else {
		n.Sum = name
	}
	if raw, err := hex.DecodeString(n.Sum); err != nil || len(raw) != 32 || strings.ToLower(n.Sum) != n.Sum {
		return ShardName{}, false
	}
	return n, true
}

// KeyBits returns the first MaxShardDepth bits of SHA-256(key) as '0'/'1'.
func KeyBits(key string) string {
	sum := sha256.Sum256([]byte(key))
	var b strings.Builder
	b.Grow(MaxShardDepth)
	for i := range MaxShardDepth {
		if sum[i/8]&(0x80>>(i%8)) != 0 {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

// ShardIndex returns the index of the shard in refs that holds key, or -1
// (only when refs is empty).
func ShardIndex(refs []ShardRef, key string) int {
	bits := KeyBits(key)
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
		if len(r.Prefix) > MaxShardDepth || strings.Trim(r.Prefix, "01") != "" {
			return fmt.Sprintf("shard prefix %q is not a bit string of at most %d bits", r.Prefix, MaxShardDepth)
		}
		if seen[r.Prefix] {
			return fmt.Sprintf("shard prefix %q appears twice", r.Prefix)
		}
		seen[r.Prefix] = true
		if _, ok := ParseShardObject(domain, r.Object); !ok {
			return fmt.Sprintf("shard object %q is not %s<token>-<attempt>-<sha256>.json", r.Object, domain+shardDir)
		}
		if r.Count < 0 {
			return fmt.Sprintf("shard %q has a negative count", r.Prefix)
		}
		total += 1 << (MaxShardDepth - len(r.Prefix))
	}
	for p := range seen {
		for q := p; q != ""; {
			q = q[:len(q)-1]
			if seen[q] {
				return fmt.Sprintf("shard prefix %q lies inside shard prefix %q", p, q)
			}
		}
	}
	if total != 1<<MaxShardDepth {
		return "shard prefixes do not cover every key exactly once"
	}
	return ""
}

// DecodeShard checks and decodes data, read from the shard ref of
// domain's manifest m. Anything it cannot trust is a *CorruptError naming
// the shard.
func DecodeShard(m *Manifest, ref ShardRef, data []byte) (*Shard, error) {
	bad := func(reason string, err error) error {
		return &CorruptError{Key: ref.Object, Reason: "shard: " + reason, Err: err}
	}
	name, _ := ParseShardObject(m.Domain, ref.Object)
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != name.Sum {
		return nil, bad("content does not match the SHA-256 in its name", nil)
	}
	d := new(Shard)
	if err := json.Unmarshal(data, d); err != nil {
		return nil, bad("not JSON", err)
	}
	switch {
	case d.Format != ShardV1 && d.Format != ShardV2:
		return nil, bad(fmt.Sprintf("unknown format %q (this build reads %q and %q)", d.Format, ShardV1, ShardV2), nil)
	case d.Domain != m.Domain:
		return nil, bad(fmt.Sprintf("records domain %q, expected %q", d.Domain, m.Domain), nil)
	}
	for k, e := range d.Keys {
		if reason, err := checkEntry(m.Domain, rules.MaxToken, k, e); reason != "" {
			return nil, bad(reason, err)
		}
		d.maxToken = max(d.maxToken, e.Token)
		if e.Deleted {
			return nil, bad(fmt.Sprintf("key %q is a tombstone", k), nil)
		}
		if e.Inline {
			return nil, bad(fmt.Sprintf("key %q has an inline value (only a manifest holds them)", k), nil)
		}
		if e.Pack != "" && d.Format != ShardV2 {
			return nil, bad(fmt.Sprintf("key %q has a value in a pack in a %s shard (packs need %s)", k, d.Format, ShardV2), nil)
		}
		if !strings.HasPrefix(KeyBits(k), d.Prefix) {
			return nil, bad(fmt.Sprintf("key %q does not belong to prefix %q", k, d.Prefix), nil)
		}
	}
	if err := CheckShardRef(m, ref, d); err != nil {
		return nil, err
	}
	return d, nil
}

// CheckShardRef checks a decoded shard against the reference to it in
// manifest m: same domain, prefix and count, and no entry above the
// manifest's highest token. Run it on every use, cached or not, so that a
// manifest that names a shard wrongly is refused however the shard was
// obtained.
func CheckShardRef(m *Manifest, ref ShardRef, d *Shard) error {
	bad := func(reason string) error {
		return &CorruptError{Key: ref.Object, Reason: "shard: " + reason}
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

// EncodeShard returns d's canonical encoding and the reference that names
// it, as written by the commit attempt at token.
func EncodeShard(d *Shard, token uint64, attempt string) ([]byte, ShardRef, error) {
	packed := false
	for _, e := range d.Keys {
		if e.Pack != "" {
			packed = true
			break
		}
	}
	d.Format = ShardV1
	if packed {
		d.Format = ShardV2
	}
	data, err := json.Marshal(d)
	if err != nil {
		return nil, ShardRef{}, fmt.Errorf("encode shard %q of %q: %w", d.Prefix, d.Domain, err)
	}
	data = append(data, '\n')
	d.maxToken = 0
	for _, e := range d.Keys {
		d.maxToken = max(d.maxToken, e.Token)
	}
	return data, ShardRef{Prefix: d.Prefix, Object: ShardObject(d.Domain, token, attempt, data), Count: len(d.Keys), Packed: packed}, nil
}

// Split divides d by the next key-hash bit until every part holds at most
// MaxShardKeys keys (or the prefix reaches MaxShardDepth).
func Split(d *Shard) []*Shard {
	if len(d.Keys) <= MaxShardKeys || len(d.Prefix) >= MaxShardDepth {
		return []*Shard{d}
	}
	halves := [2]*Shard{
		{Format: ShardV1, Domain: d.Domain, Prefix: d.Prefix + "0", Keys: map[string]Entry{}},
		{Format: ShardV1, Domain: d.Domain, Prefix: d.Prefix + "1", Keys: map[string]Entry{}},
	}
	for k, e := range d.Keys {
		bit := KeyBits(k)[len(d.Prefix)] - '0'
		halves[bit].Keys[k] = e
	}
	return slices.Concat(Split(halves[0]), Split(halves[1]))
}
