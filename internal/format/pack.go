package format

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/fencedstore/fence/rules"
)

// Packs. When a commit moves inline values out of the manifest (a spill,
// before a fold or past the inline budget), it writes them all, one after
// another, into one object, a pack, rather than each into a version
// object of its own: one request instead of one per value. Each moved
// entry keeps its Version (the name of the version, which no object ever
// has) and records the pack and the offset of its bytes in it (Entry.Pack,
// Entry.Offset). A pack is written once and never changed; it is named,
// like a shard, for the commit attempt that wrote it:
//
//	<domain>/_fence/p/<20-digit token>-<attempt>-<sha256>.pack
//
// so the collector judges it as it judges a shard (docs/design.md,
// "Garbage collection"). A manifest whose overlay holds a packed entry, or
// that names a shard holding one, is format v4, and such a shard is
// fence.shard/v2: builds that know neither refuse them instead of looking
// for version objects that were never written.

const packDir = SystemDir + "p/"

// PackPrefix returns the prefix under which domain's packs live.
func PackPrefix(domain string) string { return domain + packDir }

// PackObject returns the object key of a pack with content data, written
// by the commit attempt at token.
func PackObject(domain string, token uint64, attempt string, data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%s%s%0*d-%s-%s.pack", domain, packDir, tokenDigits, token, attempt, hex.EncodeToString(sum[:]))
}

// PackName is a parsed pack object key.
type PackName struct {
	Token   uint64
	Attempt string
	Sum     string // hex SHA-256 of the content
}

// ParsePackObject parses a pack object key of domain (see PackObject).
func ParsePackObject(domain, object string) (PackName, bool) {
	name, ok := strings.CutPrefix(object, domain+packDir)
	if !ok {
		return PackName{}, false
	}
	name, ok = strings.CutSuffix(name, ".pack")
	if !ok {
		return PackName{}, false
	}
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return PackName{}, false
	}
	head, sum := name[:i], name[i+1:]
	if len(head) < tokenDigits+2 || head[tokenDigits] != '-' || strings.Trim(head[:tokenDigits], "0123456789") != "" {
		return PackName{}, false
	}
	tok, err := strconv.ParseUint(head[:tokenDigits], 10, 64)
	if err != nil || rules.ValidateToken(tok) != nil {
		return PackName{}, false
	}
	n := PackName{Token: tok, Attempt: head[tokenDigits+1:], Sum: sum}
	if ValidSuffix(n.Attempt) != "" {
		return PackName{}, false
	}
	if raw, err := hex.DecodeString(sum); err != nil || len(raw) != 32 || strings.ToLower(sum) != sum {
		return PackName{}, false
	}
	return n, true
}

// Packed reports whether e's bytes are in a pack.
func (e Entry) Packed() bool { return e.Pack != "" }

// checkPacked checks the pack fields of key k's entry e in domain.
func checkPacked(domain, k string, e Entry) string {
	switch {
	case e.Pack == "" && e.Offset != 0:
		return fmt.Sprintf("key %q: an offset without a pack", k)
	case e.Pack == "":
		return ""
	case e.Inline:
		return fmt.Sprintf("key %q: both inline and in pack %q", k, e.Pack)
	case e.Offset < 0:
		return fmt.Sprintf("key %q: negative offset in pack %q", k, e.Pack)
	}
	if _, ok := ParsePackObject(domain, e.Pack); !ok {
		return fmt.Sprintf("key %q: pack %q is not %s<token>-<attempt>-<sha256>.pack", k, e.Pack, domain+packDir)
	}
	return ""
}

// hasPacked reports whether m's overlay, or a shard it names, holds a
// packed entry.
func (m *Manifest) hasPacked() bool {
	for _, r := range m.Shards {
		if r.Packed {
			return true
		}
	}
	for _, e := range m.Keys {
		if e.Pack != "" {
			return true
		}
	}
	return false
}
