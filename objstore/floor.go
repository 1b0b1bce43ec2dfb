package objstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// A domain's floor marker (format.Floor, at format.FloorKey) is written
// once, right after the domain's first manifest, and never deleted:
// garbage collection leaves it alone, and a Store that finds a domain's
// manifest missing but its marker present fails closed.

// writeFloor writes m's domain's floor marker unless it exists. It is best
// effort: the manifest write it follows has landed, and a missing marker
// only weakens the defence against a lost manifest until Collect writes
// it.
func (s *Store) writeFloor(ctx context.Context, m *format.Manifest) {
	data, err := json.Marshal(format.Floor{Format: format.FloorV1, Domain: m.Domain, Token: m.Highest, Created: s.opts.Now().UTC()})
	if err != nil {
		return
	}
	data = append(data, '\n')
	_, err = s.b.Put(ctx, format.FloorKey(m.Domain), bytes.NewReader(data), int64(len(data)), driver.PutOptions{Mode: driver.Create{}, ContentType: "application/json"})
	if err != nil && !errors.Is(err, driver.ErrPreconditionFailed) {
		s.opts.Logger.Warn("objstore: could not write the domain's floor marker; gc will", "domain", m.Domain, "err", err)
	}
}

// ensureFloor writes domain's floor marker if it is missing.
func (s *Store) ensureFloor(ctx context.Context, m *format.Manifest) error {
	_, err := s.b.Head(ctx, format.FloorKey(m.Domain))
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, ErrNotFound):
		return fmt.Errorf("objstore: check floor marker %q: %w", format.FloorKey(m.Domain), err)
	}
	s.writeFloor(ctx, m)
	return nil
}

// seenManifests remembers, per domain, the newest manifest this Store has
// read or written. A manifest never goes back and never disappears, so a
// read that finds it missing, or older, means the store lost data (an
// erasure-coded MinIO whose drives came back stale answers 404 for an
// object it holds on no majority): it fails closed.
type seenManifests struct {
	mu sync.Mutex
	m  map[string]seenManifest
}

type seenManifest struct{ seq, highest uint64 }

// get returns what was seen of domain. Take it before a read starts:
// compare the read only with what was seen before it, since a write that
// lands while the read is in flight may be newer than what it returns.
func (c *seenManifests) get(domain string) (seenManifest, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.m[domain]
	return old, ok
}

// check refuses m (nil: missing) when it is older than old, what was seen
// before the read began (ok: anything was).
func (c *seenManifests) check(old seenManifest, ok bool, key string, m *format.Manifest) error {
	switch {
	case !ok:
	case m == nil:
		return &CorruptManifestError{Key: key, Reason: fmt.Sprintf("missing, but this process read it before (seq %d, highest_token %d): the store lost it; refusing to treat the domain as new", old.seq, old.highest)}
	case m.Seq < old.seq || m.Highest < old.highest:
		return &CorruptManifestError{Key: key, Reason: fmt.Sprintf("went back to seq %d, highest_token %d after this process read seq %d, highest_token %d: the store served an older copy", m.Seq, m.Highest, old.seq, old.highest)}
	}
	c.note(m)
	return nil
}

// note records m as seen.
func (c *seenManifests) note(m *format.Manifest) {
	if m == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]seenManifest)
	}
	if _, ok := c.m[m.Domain]; !ok && len(c.m) >= maxSeenDomains {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	old := c.m[m.Domain]
	c.m[m.Domain] = seenManifest{max(old.seq, m.Seq), max(old.highest, m.Highest)}
}

// maxSeenDomains bounds seenManifests; past it, an arbitrary domain is
// forgotten (and loses this defence).
const maxSeenDomains = 1 << 16
