package objstore

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// ManifestFormatV1 is the format tag of version 1 manifests. A reader that
// meets any other tag refuses the manifest rather than guess.
const ManifestFormatV1 = "fence.manifest/v1"

// maxManifestSize bounds how much of a manifest object is read.
const maxManifestSize = 256 << 20

// Manifest is the decoded state of one domain: the highest accepted token,
// the current version of every live key, and a bounded log of recent
// commits. It is the object that serializes the domain: every commit is one
// conditional write of it. See docs/manifest.md for the format.
type Manifest struct {
	Format  string           `json:"format"`
	Domain  string           `json:"domain"`
	Highest uint64           `json:"highest_token"`
	Seq     uint64           `json:"seq"` // commits applied so far; the manifest's version
	Last    LogEntry         `json:"last_commit"`
	Keys    map[string]Entry `json:"keys"`
	Log     []LogEntry       `json:"log"` // oldest first, at most Options.LogLimit
}

// Entry is the current version of one live key.
type Entry struct {
	Version   string    `json:"version"` // the version's object key
	Size      int64     `json:"size"`
	SHA256    string    `json:"sha256"` // lower-case hex
	Token     uint64    `json:"token"`
	Committed time.Time `json:"committed"`
}

// LogEntry records one commit.
type LogEntry struct {
	Seq     uint64    `json:"seq"`
	ID      string    `json:"id"`
	Token   uint64    `json:"token"`
	Holder  string    `json:"holder"`
	Time    time.Time `json:"time"`
	Puts    int       `json:"puts"`
	Deletes int       `json:"deletes"`
}

// clone returns a deep copy of m, for callers who may modify it.
func (m *Manifest) clone() *Manifest {
	c := *m
	c.Keys = maps.Clone(m.Keys)
	c.Log = slices.Clone(m.Log)
	return &c
}

// hasCommit reports whether the log records commit id.
func (m *Manifest) hasCommit(id string) (LogEntry, bool) {
	for i := len(m.Log) - 1; i >= 0; i-- {
		if m.Log[i].ID == id {
			return m.Log[i], true
		}
	}
	return LogEntry{}, false
}

// covers reports whether the log still holds every commit after seq, so
// that the absence of an id from it proves the commit was not applied
// after seq.
func (m *Manifest) covers(seq uint64) bool {
	if m.Seq <= seq {
		return true
	}
	return len(m.Log) > 0 && m.Log[0].Seq <= seq+1
}

// versionOf returns the public Version of key.
func (m *Manifest) versionOf(key string) (Version, bool) {
	e, ok := m.Keys[key]
	if !ok {
		return Version{}, false
	}
	return Version{Key: key, Object: e.Version, Size: e.Size, SHA256: e.SHA256, Token: e.Token, Committed: e.Committed}, true
}

// versions returns every live key's version, sorted by key.
func (m *Manifest) versions() []Version {
	out := make([]Version, 0, len(m.Keys))
	for _, k := range slices.Sorted(maps.Keys(m.Keys)) {
		v, _ := m.versionOf(k)
		out = append(out, v)
	}
	return out
}

// next returns a copy of m with one commit applied. It does not modify m.
func (m *Manifest) next(domain string, token uint64, entry LogEntry, puts map[string]Entry, deletes []string, logLimit int) *Manifest {
	n := &Manifest{
		Format:  ManifestFormatV1,
		Domain:  domain,
		Highest: max(m.Highest, token),
		Seq:     m.Seq + 1,
		Keys:    make(map[string]Entry, len(m.Keys)+len(puts)),
	}
	maps.Copy(n.Keys, m.Keys)
	for _, k := range deletes {
		delete(n.Keys, k)
	}
	for k, e := range puts {
		e.Committed = entry.Time
		n.Keys[k] = e
	}
	entry.Seq = n.Seq
	n.Last = entry
	start := 0
	if len(m.Log)+1 > logLimit {
		start = len(m.Log) + 1 - logLimit
	}
	n.Log = append(slices.Clone(m.Log[start:]), entry)
	return n
}

// EncodeManifest returns m's canonical encoding: compact JSON, one line.
func EncodeManifest(m *Manifest) ([]byte, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("objstore: encode manifest of %q: %w", m.Domain, err)
	}
	return append(data, '\n'), nil
}

// DecodeManifest decodes and checks the manifest stored at objectKey for
// domain. Anything it cannot fully trust is a *CorruptManifestError: an
// empty object, bad JSON, an unknown format, another domain's manifest, a
// highest token of 0 or out of range, or an entry that contradicts the
// rest. A manifest is never read as empty or as token 0.
func DecodeManifest(domain, objectKey string, data []byte) (*Manifest, error) {
	bad := func(reason string, err error) error {
		return &CorruptManifestError{Key: objectKey, Reason: reason, Err: err}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, bad("object is empty", nil)
	}
	var probe struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, bad("not a JSON manifest", err)
	}
	if probe.Format != ManifestFormatV1 {
		return nil, bad(fmt.Sprintf("unknown format %q (this build reads %q)", probe.Format, ManifestFormatV1), nil)
	}
	m := new(Manifest)
	if err := json.Unmarshal(data, m); err != nil {
		return nil, bad("fields do not match format "+ManifestFormatV1, err)
	}
	if m.Domain != domain {
		return nil, bad(fmt.Sprintf("records domain %q, expected %q", m.Domain, domain), nil)
	}
	if m.Highest == 0 || m.Highest > MaxToken {
		return nil, bad(fmt.Sprintf("highest_token %d is outside 1..%d", m.Highest, uint64(MaxToken)), nil)
	}
	if m.Seq == 0 {
		return nil, bad("seq is 0", nil)
	}
	if m.Keys == nil {
		m.Keys = map[string]Entry{}
	}
	for k, e := range m.Keys {
		if err := ValidateKey(k); err != nil {
			return nil, bad(fmt.Sprintf("live key %q is invalid", k), err)
		}
		d, vk, tok, _, err := ParseVersionKey(e.Version)
		if err != nil {
			return nil, bad(fmt.Sprintf("key %q names a malformed version", k), err)
		}
		switch {
		case d != domain || vk != k:
			return nil, bad(fmt.Sprintf("key %q names version %q of another key or domain", k, e.Version), nil)
		case tok != e.Token:
			return nil, bad(fmt.Sprintf("key %q: token %d disagrees with its version %q", k, e.Token, e.Version), nil)
		case e.Token > m.Highest:
			return nil, bad(fmt.Sprintf("key %q: token %d is above highest_token %d", k, e.Token, m.Highest), nil)
		case e.Size < 0:
			return nil, bad(fmt.Sprintf("key %q: negative size", k), nil)
		}
		if raw, err := hex.DecodeString(e.SHA256); err != nil || len(raw) != 32 {
			return nil, bad(fmt.Sprintf("key %q: sha256 %q is not 64 hex digits", k, e.SHA256), nil)
		}
	}
	for i, l := range m.Log {
		if l.Seq > m.Seq || (i > 0 && l.Seq <= m.Log[i-1].Seq) {
			return nil, bad(fmt.Sprintf("log entry %d has seq %d out of order (manifest seq %d)", i, l.Seq, m.Seq), nil)
		}
	}
	return m, nil
}
