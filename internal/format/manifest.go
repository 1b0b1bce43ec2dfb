package format

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/fencedstore/fence/rules"
)

// Manifest format tags. A reader that meets any other tag refuses the
// manifest rather than guess. A manifest is written with the oldest tag
// whose readers can read it whole: v1 while its domain has no shards and
// no inline values, so builds that read only v1 keep working on small
// domains; v2 once its keys are folded into shards; v3 while it holds
// inline values (small values kept in the manifest itself, with or
// without shards), which builds that read only v1 and v2 refuse instead
// of looking for version objects that were never written; v4 while its
// overlay, or a shard it names, holds a value moved into a pack (see
// PackObject), which builds that read only v1 to v3 refuse for the same
// reason.
const (
	ManifestV1 = "fence.manifest/v1"
	ManifestV2 = "fence.manifest/v2"
	ManifestV3 = "fence.manifest/v3"
	ManifestV4 = "fence.manifest/v4"
)

// MaxManifestSize bounds how much of a manifest or shard object is read.
const MaxManifestSize = 256 << 20

// Manifest is the decoded state of one domain: the highest accepted token,
// the current version of every live key, and a bounded log of recent
// commits. It is the object that serializes the domain: every commit is one
// conditional write of it. See docs/manifest.md for the format.
type Manifest struct {
	Format  string   `json:"format"`
	Domain  string   `json:"domain"`
	Highest uint64   `json:"highest_token"`
	Seq     uint64   `json:"seq"` // commits applied so far; the manifest's version
	Last    LogEntry `json:"last_commit"`
	// Raised is the log entry of the commit that raised Highest to its
	// current value: the acquisition that owns the token. A fence at a
	// token equal to Highest succeeds only for that commit. Manifests
	// written before this field existed lack it (see RaisedBy).
	Raised LogEntry `json:"raised_by,omitzero"`
	// Keys holds every live key when Shards is empty (format v1). With
	// shards (format v2) it is an overlay of recent changes on top of
	// them, where a Deleted entry is a tombstone.
	Keys   map[string]Entry `json:"keys"`
	Shards []ShardRef       `json:"shards,omitempty"`
	Log    []LogEntry       `json:"log"` // oldest first, at most the store's LogLimit

	// slab is the array Log lives in when Next made it (see nextLog).
	slab *logSlab
}

// Entry is the current version of one live key.
type Entry struct {
	Version string `json:"version"` // the version's object key
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256"` // lower-case hex
	// CRC32C and CRC32 are the CRC-32C (Castagnoli) and CRC-32 (IEEE)
	// of the same bytes, 8 lower-case hex digits each. Readers check
	// them, with the size, instead of SHA-256 when both are recorded:
	// together they are a 64-bit check that costs a small fraction of
	// SHA-256's CPU (see docs/manifest.md, "Checksums"). Entries written
	// before these fields existed have neither, and are read by their
	// SHA-256.
	CRC32C    string    `json:"crc32c,omitempty"`
	CRC32     string    `json:"crc32,omitempty"`
	Token     uint64    `json:"token"`
	Committed time.Time `json:"committed"`
	// Deleted marks a tombstone in a v2 manifest's overlay: the key was
	// deleted by the commit at Token. Version, Size, SHA256 and the CRCs
	// are empty.
	Deleted bool `json:"deleted,omitempty"`
	// Inline marks a value kept in the manifest itself (format v3): Data
	// holds its Size bytes (base64 in JSON), and Version names the object
	// that will hold them if a later commit moves them out of the
	// manifest; until then that object does not exist. Only a manifest's
	// overlay holds inline values, never a shard.
	Inline bool   `json:"inline,omitempty"`
	Data   []byte `json:"data,omitempty"`
	// Pack, when set, names the pack that holds the value's bytes (format
	// v4): Size bytes at Offset. Version then names no object. See
	// PackObject.
	Pack   string `json:"pack,omitempty"`
	Offset int64  `json:"offset,omitempty"`
}

// InlineBytes returns the bytes of the inline values m holds.
func (m *Manifest) InlineBytes() int64 {
	var n int64
	for _, e := range m.Keys {
		if e.Inline {
			n += e.Size
		}
	}
	return n
}

// HasInline reports whether m holds any inline value.
func (m *Manifest) HasInline() bool {
	for _, e := range m.Keys {
		if e.Inline {
			return true
		}
	}
	return false
}

// LogEntry records one commit.
type LogEntry struct {
	Seq     uint64    `json:"seq"`
	ID      string    `json:"id"`
	Token   uint64    `json:"token"`
	Holder  string    `json:"holder"`
	Time    time.Time `json:"time"`
	Puts    int       `json:"puts"`    // keys the commit put
	Deletes int       `json:"deletes"` // keys the commit deleted
	// PutKeys and DeletedKeys name the keys put and deleted, sorted, at
	// most LogKeysLimit of each (see SetKeys); KeysTruncated is set when
	// either list is shorter than its count. Entries written by builds
	// before these fields have neither.
	PutKeys       []string `json:"put_keys,omitempty"`
	DeletedKeys   []string `json:"deleted_keys,omitempty"`
	KeysTruncated bool     `json:"keys_truncated,omitempty"`
	// Attempt is the suffix of the version and shard objects that the
	// landed attempt of this commit wrote, when it differs from ID (a
	// retry uploads under a fresh attempt id, so no object name is ever
	// written by two attempts).
	Attempt string `json:"attempt,omitempty"`
}

// AttemptID returns the suffix of the objects the landed attempt wrote.
func (e LogEntry) AttemptID() string {
	if e.Attempt != "" {
		return e.Attempt
	}
	return e.ID
}

// Clone returns a deep copy of m, for callers who may modify it.
func (m *Manifest) Clone() *Manifest {
	c := *m
	c.Keys = maps.Clone(m.Keys)
	c.Shards = slices.Clone(m.Shards)
	c.Log, c.slab = slices.Clone(m.Log), nil
	return &c
}

// HasCommit reports whether the log records commit id.
func (m *Manifest) HasCommit(id string) (LogEntry, bool) {
	for i := len(m.Log) - 1; i >= 0; i-- {
		if m.Log[i].ID == id {
			return m.Log[i], true
		}
	}
	return LogEntry{}, false
}

// RaisedBy returns the log entry of the commit that raised the domain's
// highest token to its current value. ok is false when the manifest cannot
// tell (one written before raised_by existed, whose log no longer holds
// that commit).
func (m *Manifest) RaisedBy() (e LogEntry, ok bool) {
	if m.Raised.ID != "" && m.Raised.Token == m.Highest {
		return m.Raised, true
	}
	for _, e := range m.Log {
		if e.Token == m.Highest {
			return e, true
		}
	}
	return LogEntry{}, false
}

// Covers reports whether the log still holds every commit after seq, so
// that the absence of an id from it proves the commit was not applied
// after seq.
func (m *Manifest) Covers(seq uint64) bool {
	if m.Seq <= seq {
		return true
	}
	return len(m.Log) > 0 && m.Log[0].Seq <= seq+1
}

// Overlay looks key up in the manifest itself. decided reports whether
// the manifest decides the key without reading a shard: the key is there
// (live, or a tombstone: ok false), or the manifest has no shards.
func (m *Manifest) Overlay(key string) (e Entry, ok, decided bool) {
	e, in := m.Keys[key]
	switch {
	case in && e.Deleted:
		return Entry{}, false, true
	case in:
		return e, true, true
	default:
		return Entry{}, false, len(m.Shards) == 0
	}
}

// NeedsFold reports whether m's overlay has outgrown its bound, so that
// the commit that writes m must fold it into shards first.
func (m *Manifest) NeedsFold() bool { return len(m.Keys) > OverlayLimit }

// Next returns a copy of m with one commit applied: the commit entry at
// token putting puts (their Committed is set to entry.Time) and deleting
// deletes, with the log trimmed to logLimit entries. It does not modify m:
// the new log may share m's array (see nextLog), but only past m's end.
func (m *Manifest) Next(domain string, token uint64, entry LogEntry, puts map[string]Entry, deletes []string, logLimit int) *Manifest {
	n := &Manifest{
		Format:  ManifestV1,
		Domain:  domain,
		Highest: max(m.Highest, token),
		Seq:     m.Seq + 1,
		Keys:    make(map[string]Entry, len(m.Keys)+len(puts)),
	}
	maps.Copy(n.Keys, m.Keys)
	n.Shards = m.Shards
	for _, k := range deletes {
		if len(n.Shards) == 0 {
			delete(n.Keys, k)
		} else {
			n.Keys[k] = Entry{Deleted: true, Token: token, Committed: entry.Time}
		}
	}
	for k, e := range puts {
		e.Committed = entry.Time
		n.Keys[k] = e
	}
	entry.Seq = n.Seq
	n.Last = entry
	n.Raised = m.Raised
	if token > m.Highest {
		n.Raised = entry
	}
	n.Log, n.slab = m.nextLog(entry, logLimit)
	return n
}

// Encode returns m's canonical encoding: compact JSON, one line, format
// v3 when m holds inline values, else v1 when it has no shards and v2
// otherwise. It sets m.Format.
func Encode(m *Manifest) ([]byte, error) {
	bp := encodeBufs.Get().(*[]byte)
	defer encodeBufs.Put(bp)
	b, err := AppendEncode((*bp)[:0], m)
	if err != nil {
		return nil, err
	}
	if cap(b) > maxPooledBuf {
		return b, nil // not kept for the next Encode: it is the result
	}
	*bp = b
	out := make([]byte, len(b))
	copy(out, b)
	return out, nil
}

// AppendEncode appends Encode's encoding of m to b. It sets m.Format.
func AppendEncode(b []byte, m *Manifest) ([]byte, error) {
	switch {
	case m.hasPacked():
		m.Format = ManifestV4
	case m.HasInline():
		m.Format = ManifestV3
	case len(m.Shards) == 0:
		m.Format = ManifestV1
	default:
		m.Format = ManifestV2
	}
	b, err := appendEncoding(b, m)
	if err != nil {
		return nil, fmt.Errorf("encode manifest of %q: %w", m.Domain, err)
	}
	return b, nil
}

// Decode decodes and checks the manifest stored at objectKey for domain.
// Anything it cannot fully trust is a *CorruptError: an empty object, bad
// JSON, an unknown format, another domain's manifest, a highest token of 0
// or out of range, or an entry that contradicts the rest. A manifest is
// never read as empty or as token 0.
func Decode(domain, objectKey string, data []byte) (*Manifest, error) {
	bad := func(reason string, err error) error {
		return &CorruptError{Key: objectKey, Reason: reason, Err: err}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, bad("object is empty", nil)
	}
	// One decode on the way that succeeds: a manifest read is mostly
	// this Unmarshal, and a first pass for the format alone cost as much
	// again (BenchmarkColdGet1KiB). Only when it fails is the format read
	// on its own, so that every refusal keeps the reason it had:
	// Manifest.Format is the same string field, so this decode fails
	// whenever that one would (TestDecodeReasons).
	m := new(Manifest)
	if err := json.Unmarshal(data, m); err != nil {
		var probe struct {
			Format string `json:"format"`
		}
		if perr := json.Unmarshal(data, &probe); perr != nil {
			return nil, bad("not a JSON manifest", perr)
		}
		if !knownFormat(probe.Format) {
			return nil, bad(unknownFormat(probe.Format), nil)
		}
		return nil, bad("fields do not match format "+probe.Format, err)
	}
	if !knownFormat(m.Format) {
		return nil, bad(unknownFormat(m.Format), nil)
	}
	if m.Domain != domain {
		return nil, bad(fmt.Sprintf("records domain %q, expected %q", m.Domain, domain), nil)
	}
	if m.Highest == 0 || m.Highest > rules.MaxToken {
		return nil, bad(fmt.Sprintf("highest_token %d is outside 1..%d", m.Highest, uint64(rules.MaxToken)), nil)
	}
	if m.Seq == 0 {
		return nil, bad("seq is 0", nil)
	}
	if m.Keys == nil {
		m.Keys = map[string]Entry{}
	}
	switch {
	case m.Format == ManifestV1 && len(m.Shards) > 0:
		return nil, bad("a v1 manifest has shards", nil)
	case m.Format == ManifestV2 && len(m.Shards) == 0:
		return nil, bad("a v2 manifest has no shards", nil)
	}
	if reason := validateShardRefs(domain, m.Shards); reason != "" {
		return nil, bad(reason, nil)
	}
	if m.Format != ManifestV4 {
		for _, r := range m.Shards {
			if r.Packed {
				return nil, bad(fmt.Sprintf("a %s manifest names shard %q, which holds values in packs (packs need %s)", m.Format, r.Object, ManifestV4), nil)
			}
		}
	}
	for k, e := range m.Keys {
		if e.Deleted && len(m.Shards) == 0 {
			return nil, bad(fmt.Sprintf("key %q is a tombstone in a manifest without shards", k), nil)
		}
		if e.Inline && m.Format != ManifestV3 && m.Format != ManifestV4 {
			return nil, bad(fmt.Sprintf("key %q has an inline value in a %s manifest (inline values need %s or %s)", k, m.Format, ManifestV3, ManifestV4), nil)
		}
		if e.Pack != "" && m.Format != ManifestV4 {
			return nil, bad(fmt.Sprintf("key %q has a value in a pack in a %s manifest (packs need %s)", k, m.Format, ManifestV4), nil)
		}
		if len(e.Data) == 0 && e.Data != nil {
			e.Data = nil // "data": "" reads as empty, as an omitted field does
			m.Keys[k] = e
		}
		if reason, err := checkEntry(domain, m.Highest, k, e); reason != "" {
			return nil, bad(reason, err)
		}
	}
	if m.Raised.ID != "" && (m.Raised.Token > m.Highest || m.Raised.Seq > m.Seq) {
		return nil, bad(fmt.Sprintf("raised_by names token %d at seq %d, beyond highest_token %d and seq %d", m.Raised.Token, m.Raised.Seq, m.Highest, m.Seq), nil)
	}
	for i, l := range m.Log {
		if l.Seq > m.Seq || (i > 0 && l.Seq <= m.Log[i-1].Seq) {
			return nil, bad(fmt.Sprintf("log entry %d has seq %d out of order (manifest seq %d)", i, l.Seq, m.Seq), nil)
		}
	}
	for _, e := range append([]*LogEntry{&m.Last, &m.Raised}, pointers(m.Log)...) {
		if reason := checkLogEntry(e); reason != "" {
			return nil, bad(reason, nil)
		}
	}
	return m, nil
}

// knownFormat reports whether this build reads manifests of format f.
func knownFormat(f string) bool {
	return f == ManifestV1 || f == ManifestV2 || f == ManifestV3 || f == ManifestV4
}

// unknownFormat is Decode's reason for a manifest of format f, which it
// does not read.
func unknownFormat(f string) string {
	return fmt.Sprintf("unknown format %q (this build reads %q, %q, %q and %q)", f, ManifestV1, ManifestV2, ManifestV3, ManifestV4)
}

// checkEntry checks one key's entry against its domain and the highest
// token. It returns a reason, and the underlying error if any, when the
// entry cannot be trusted.
func checkEntry(domain string, highest uint64, k string, e Entry) (string, error) {
	if err := rules.ValidateKey(k); err != nil {
		return fmt.Sprintf("live key %q is invalid", k), err
	}
	if e.Token == 0 || e.Token > highest {
		return fmt.Sprintf("key %q: token %d is outside 1..highest_token %d", k, e.Token, highest), nil
	}
	if e.Deleted {
		if e.Version != "" || e.Size != 0 || e.SHA256 != "" || e.CRC32C != "" || e.CRC32 != "" || e.Inline || len(e.Data) > 0 || e.Pack != "" || e.Offset != 0 {
			return fmt.Sprintf("key %q: a tombstone names a version", k), nil
		}
		return "", nil
	}
	switch {
	case e.Inline && int64(len(e.Data)) != e.Size:
		return fmt.Sprintf("key %q: inline value has %d bytes, size %d", k, len(e.Data), e.Size), nil
	case !e.Inline && len(e.Data) > 0:
		return fmt.Sprintf("key %q: data without inline", k), nil
	}
	if reason := checkPacked(domain, k, e); reason != "" {
		return reason, nil
	}
	d, vk, tok, _, err := ParseVersionKey(e.Version)
	if err != nil {
		return fmt.Sprintf("key %q names a malformed version", k), err
	}
	switch {
	case d != domain || vk != k:
		return fmt.Sprintf("key %q names version %q of another key or domain", k, e.Version), nil
	case tok != e.Token:
		return fmt.Sprintf("key %q: token %d disagrees with its version %q", k, e.Token, e.Version), nil
	case e.Size < 0:
		return fmt.Sprintf("key %q: negative size", k), nil
	}
	if raw, err := hex.DecodeString(e.SHA256); err != nil || len(raw) != 32 {
		return fmt.Sprintf("key %q: sha256 %q is not 64 hex digits", k, e.SHA256), nil
	}
	for _, c := range [...]struct{ name, v string }{{"crc32c", e.CRC32C}, {"crc32", e.CRC32}} {
		if c.v != "" && !isCRC(c.v) {
			return fmt.Sprintf("key %q: %s %q is not 8 lower-case hex digits", k, c.name, c.v), nil
		}
	}
	return "", nil
}

// isCRC reports whether s is a CRC as entries record it: 8 lower-case
// hex digits.
func isCRC(s string) bool {
	if len(s) != 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
