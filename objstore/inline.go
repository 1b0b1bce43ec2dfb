package objstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// Inline values. A put of at most Options.InlineMax bytes is kept in the
// manifest itself (format v3), with its size and SHA-256 as any version,
// under the name of the version object it would have had. A commit of
// only such values is then one conditional write, and a cold read of one
// a single GET. The manifest stays small: inline values live only in its
// overlay, never in shards, and a commit moves them out to their version
// objects (spills them) before it folds the overlay, or when they would
// pass Options.InlineBudget, into one pack (format.PackObject) for all
// the values it moves; see docs/manifest.md, "Inline values" and
// "Packs".

// inline reads ch's body when it is small enough to keep in the manifest,
// and returns its entry, under vk, the name of the version object it
// would have had. ok is false when it is not: then rest is the change to
// upload (its body unread, or what was read of it put back in front).
//
// The body is copied, even from PutBytes: the entry outlives the commit
// in the Store's cached manifest, and the caller may reuse its slice.
func (c *commit) inline(ch Change, vk string) (e format.Entry, rest Change, ok bool, err error) {
	limit := c.s.opts.InlineMax
	if limit < 0 || ch.Size > limit {
		return format.Entry{}, ch, false, nil
	}
	var start int64 = -1
	seeker, canRewind := ch.Body.(io.Seeker)
	if canRewind && ch.Size < 0 {
		if start, err = seeker.Seek(0, io.SeekCurrent); err != nil {
			canRewind = false
		}
	}
	// Read one byte past the limit (or the declared size): a body longer
	// than declared fails as an upload would, and one of unknown size
	// that turns out large is uploaded.
	want := limit + 1
	if ch.Size >= 0 {
		want = ch.Size + 1
	}
	data, err := readUpTo(ch.Body, want, ch.Size >= 0)
	if err != nil {
		return format.Entry{}, ch, false, fmt.Errorf("objstore: read %q: %w", ch.Key, err)
	}
	n := int64(len(data))
	switch {
	case ch.Size >= 0 && n != ch.Size:
		return format.Entry{}, ch, false, fmt.Errorf("objstore: upload %q: body has %s bytes, declared size %d", ch.Key, atLeast(n, ch.Size), ch.Size)
	case n > limit:
		// Unknown size, and larger than the limit: upload it whole.
		if canRewind {
			if _, err := seeker.Seek(start, io.SeekStart); err != nil {
				return format.Entry{}, ch, false, fmt.Errorf("objstore: read %q: rewind: %w", ch.Key, err)
			}
			return format.Entry{}, ch, false, nil
		}
		ch.Body = io.MultiReader(bytes.NewReader(data), ch.Body)
		return format.Entry{}, ch, false, nil
	}
	e = entryOf(vk, driver.DigestOf(data), c.token)
	e.Inline, e.Data = true, data
	return e, ch, true, nil
}

// readUpTo reads r to its end or to n bytes, whichever comes first. With
// exact (n is one past the body's declared size) it reads into one buffer
// of n bytes rather than a growing one.
func readUpTo(r io.Reader, n int64, exact bool) ([]byte, error) {
	if !exact {
		return io.ReadAll(io.LimitReader(r, n))
	}
	buf := make([]byte, n)
	got, err := io.ReadFull(r, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return buf[:got], err
}

// atLeast describes n bytes read of a body declared as size: "n" when
// the body ended, "more than size" when reading stopped past it.
func atLeast(n, size int64) string {
	if n > size {
		return fmt.Sprintf("more than %d", size)
	}
	return fmt.Sprint(n)
}

// spillNeeded reports whether next must move inline values out: it is
// about to be folded, or it holds more than the budget.
func (s *Store) spillNeeded(next *format.Manifest) bool {
	return next.HasInline() && (next.NeedsFold() || next.InlineBytes() > s.opts.InlineBudget)
}

// spill moves inline values of next out of the manifest, in place:
// every one when next is about to be folded, else the oldest until at
// most half the budget is left. It writes them, oldest first, into one
// pack named for c's attempt (format.PackObject), and each moved entry
// records the pack and its offset: one request, however many values
// move. next is a manifest this commit built (Manifest.Next), not a
// shared one.
func (c *commit) spill(ctx context.Context, next *format.Manifest) error {
	all := inlineOldestFirst(next)
	if !next.NeedsFold() {
		left, keep := next.InlineBytes(), c.s.opts.InlineBudget/2
		n := 0
		for n < len(all) && left > keep {
			left -= all[n].e.Size
			n++
		}
		all = all[:n]
	}
	if len(all) == 0 {
		return nil
	}
	var size int64
	for _, x := range all {
		size += x.e.Size
	}
	data := make([]byte, 0, size)
	offsets := make([]int64, len(all))
	for i, x := range all {
		offsets[i] = int64(len(data))
		data = append(data, x.e.Data...)
	}
	pack := format.PackObject(c.domain, c.token, c.attempt, data)
	// A pack this commit wrote before a manifest write that lost (412)
	// is not written again: its name is its content's.
	if !c.packs[pack] {
		if err := c.s.putOwn(ctx, pack, data, "application/octet-stream"); err != nil {
			return fmt.Errorf("objstore: move %d inline values of %q into pack %q: %w", len(all), c.domain, pack, err)
		}
		if c.packs == nil {
			c.packs = make(map[string]bool)
		}
		c.packs[pack] = true
	}
	for i, x := range all {
		e := withCRCs(x.e)
		e.Inline, e.Data = false, nil
		e.Pack, e.Offset = pack, offsets[i]
		next.Keys[x.key] = e
	}
	return nil
}

// inlineValue is one inline value of a manifest.
type inlineValue struct {
	key string
	e   format.Entry
}

// inlineOldestFirst returns m's inline values, oldest commit first (then
// by key): the order in which spills move them out.
func inlineOldestFirst(m *format.Manifest) []inlineValue {
	var all []inlineValue
	for k, e := range m.Keys {
		if e.Inline {
			all = append(all, inlineValue{k, e})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].e.Committed.Equal(all[j].e.Committed) {
			return all[i].e.Committed.Before(all[j].e.Committed)
		}
		return all[i].key < all[j].key
	})
	return all
}

// inlineReader returns a Reader over v's inline bytes, which it verifies
// like any version's.
func (s *Store) inlineReader(v Version) *Reader {
	return s.newReader(v, io.NopCloser(bytes.NewReader(v.data)))
}
