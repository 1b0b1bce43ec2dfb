package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

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
// pass Options.InlineBudget. A spilled value's object is written once,
// under the name the manifest already gives it, by whichever commit
// spills it; see docs/manifest.md, "Inline values".

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

// spill moves inline values of next to their version objects, in
// place: every one when next is about to be folded, else the oldest until
// at most half the budget is left. next is a manifest this commit built
// (Manifest.Next), not a shared one.
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
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.s.opts.UploadParallelism)
	for _, x := range all {
		g.Go(func() error {
			mu.Lock()
			done := c.spilled[x.e.Version] || c.s.pre.has(x.e.Version)
			mu.Unlock()
			// A value this commit already moved out, before a manifest
			// write that lost (412), is not written again: it stayed
			// named, inline, in every manifest since, so the collector
			// kept its object.
			if !done {
				if err := c.s.writeSpilled(gctx, x.key, x.e); err != nil {
					return err
				}
			}
			e := withCRCs(x.e)
			e.Inline, e.Data = false, nil
			mu.Lock()
			if c.spilled == nil {
				c.spilled = make(map[string]bool)
			}
			c.spilled[x.e.Version] = true
			next.Keys[x.key] = e
			mu.Unlock()
			return nil
		})
	}
	return g.Wait()
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

// writeSpilled writes inline entry e of key to its version object. The
// name is e's alone, so an object already there is an earlier spill of
// the same bytes (another commit's, or this one's answered 412 on a
// retry); it is accepted only if it holds them.
func (s *Store) writeSpilled(ctx context.Context, key string, e format.Entry) error {
	_, err := s.b.Put(ctx, e.Version, bytes.NewReader(e.Data), e.Size, driver.PutOptions{Mode: driver.Create{}})
	if err == nil {
		return nil
	}
	if !errors.Is(err, driver.ErrPreconditionFailed) {
		return fmt.Errorf("objstore: move inline value of %q to %q: %w", key, e.Version, err)
	}
	rc, _, err := s.b.Get(ctx, e.Version, driver.GetOptions{})
	if err != nil {
		return fmt.Errorf("objstore: move inline value of %q: %q exists but cannot be read back: %w", key, e.Version, err)
	}
	defer rc.Close()
	d := driver.NewDigester()
	n, err := io.Copy(d, rc)
	if err != nil {
		return fmt.Errorf("objstore: move inline value of %q: read back %q: %w", key, e.Version, err)
	}
	if !digestMatches(d.Digest(), e) {
		return fmt.Errorf("objstore: move inline value of %q: %q already exists with other bytes than the manifest records (%d bytes): %w", key, e.Version, n, ErrIntegrity)
	}
	return nil
}

// inlineReader returns a Reader over v's inline bytes, which it verifies
// like any version's.
func (s *Store) inlineReader(v Version) *Reader {
	return s.newReader(v, io.NopCloser(bytes.NewReader(v.data)))
}
