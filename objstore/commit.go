package objstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fencedstore/fence/internal/backoff"
)

// Commit publishes changes to domain atomically under token: either every
// change becomes visible, in one manifest write, or none does. It fails
// with a *FencedError when the domain has accepted a higher token; a token
// equal to the highest is accepted.
//
// The new bytes are first uploaded to write-once version objects; nothing
// reads them until the manifest names them. When a reply is lost or the
// store answers with a 5xx, Commit reads the manifest back and reports
// success if it holds the commit's id. It returns an error matching
// ErrOutcomeUnknown only when that cannot be decided before ctx ends, and
// never reports "fenced" for a commit of its own that already landed.
func (s *Store) Commit(ctx context.Context, domain string, token uint64, changes []Change, opts *CommitOptions) (Commit, error) {
	if err := validateCommit(domain, token, changes); err != nil {
		return Commit{}, err
	}
	var o CommitOptions
	if opts != nil {
		o = *opts
	}
	if o.ID == "" {
		o.ID = newID()
	} else if reason := validSuffix(o.ID); reason != "" {
		return Commit{}, &InvalidError{What: "commit id", Value: o.ID, Reason: reason}
	}
	if o.Holder == "" {
		o.Holder = s.opts.Holder
	}
	ctx, cancel := s.withDeadline(ctx)
	defer cancel()
	if err := s.ensureProbed(ctx); err != nil {
		return Commit{}, err
	}

	c := &commit{s: s, domain: domain, token: token, id: o.ID, holder: o.Holder}
	for _, ch := range changes {
		if ch.Delete {
			c.deletes = append(c.deletes, ch.Key)
		} else {
			c.puts = append(c.puts, ch)
		}
	}
	m, etag, err := s.cachedManifest(ctx, domain)
	if err != nil {
		return Commit{}, err
	}
	if m != nil && opts != nil && opts.ID != "" {
		// A retry of an earlier commit: decide on the current manifest.
		if m, etag, err = s.loadManifest(ctx, domain); err != nil {
			return Commit{}, err
		}
	}
	if m != nil {
		if e, ok := m.hasCommit(c.id); ok {
			return c.result(m, e, true), nil // a retry of a commit that landed
		}
		if m.Highest > token {
			return Commit{}, c.fenced(m.Highest)
		}
	}
	if m == nil && len(c.puts) > 0 {
		// Create the manifest before any version exists, so that versions
		// without a manifest always mean a lost manifest (which fails
		// closed) and never an interrupted first commit.
		first := &commit{s: s, domain: domain, token: token, id: newID(), holder: o.Holder}
		if _, err := first.publish(ctx, nil, ""); err != nil {
			return Commit{}, err
		}
		if m, etag, err = s.loadManifest(ctx, domain); err != nil {
			return Commit{}, err
		}
		if m.Highest > token {
			return Commit{}, c.fenced(m.Highest)
		}
	}
	if err := c.upload(ctx); err != nil {
		return Commit{}, err
	}
	return c.publish(ctx, m, etag)
}

// Put commits one key. size is body's exact length, or -1 when unknown.
func (s *Store) Put(ctx context.Context, domain, key string, token uint64, body io.Reader, size int64) (Commit, error) {
	return s.Commit(ctx, domain, token, []Change{PutReader(key, body, size)}, nil)
}

// Delete commits the removal of key from domain. Deleting a key that is
// not live is not an error; the commit still records the token.
func (s *Store) Delete(ctx context.Context, domain, key string, token uint64) (Commit, error) {
	return s.Commit(ctx, domain, token, []Change{DeleteKey(key)}, nil)
}

// Fence raises domain's highest accepted token to token without writing
// data. A new lease holder calls it before reading or writing, so that the
// previous holder's late writes are rejected even before the new holder's
// first write. It is a no-op when the domain's highest token already equals
// token, and fails with a *FencedError when it is higher.
func (s *Store) Fence(ctx context.Context, domain string, token uint64) (Commit, error) {
	return s.Commit(ctx, domain, token, nil, nil)
}

// commit is the state of one Commit call.
type commit struct {
	s       *Store
	domain  string
	token   uint64
	id      string
	holder  string
	puts    []Change
	deletes []string
	entries map[string]Entry // uploaded versions, by key
}

// publish writes the manifest that applies c on top of m, re-reading and
// deciding again until the write lands, the domain is fenced, or ctx ends.
//
// A manifest write whose reply is an error may still have landed: a
// timeout or a 5xx says nothing, and a 412 (or 404) may be the answer to
// a retry, by the SDK or a proxy, of a write that landed before its reply
// was lost. Such a write is uncertain until a manifest read back settles
// it: our commit id in the log (it landed), or a log that reaches back to
// the seq after the write's base without it (it did not, and no longer
// can: its If-Match is stale). Until then the commit is not reported
// fenced, and is not written again unless it is a fence (writing a fence
// twice changes nothing); if the log has moved on too far to tell, the
// outcome is unknown.
func (c *commit) publish(ctx context.Context, m *Manifest, etag string) (Commit, error) {
	s := c.s
	bo := new(backoff.Backoff)
	var (
		uncertain bool   // a manifest write may have landed unseen
		uncBase   uint64 // the seq that the earliest such write was based on
		lastErr   error
	)
	for {
		if m != nil {
			if e, ok := m.hasCommit(c.id); ok {
				return c.result(m, e, true), nil
			}
			if uncertain && m.covers(uncBase) {
				// Every write since the earliest uncertain one is in the
				// log, and ours is not: none of them landed.
				uncertain, lastErr = false, nil
			}
			fence := len(c.puts) == 0 && len(c.deletes) == 0
			switch {
			case uncertain && (m.Highest > c.token || !fence):
				// Ours may have landed and left the log: neither fenced
				// nor safe to write again, which could apply it twice.
				// (A fence may be written again: it changes nothing
				// the second time.)
				return Commit{}, c.unknown(fmt.Errorf("the manifest's log no longer reaches back to seq %d: %w", uncBase+1, lastErr))
			case m.Highest > c.token:
				return Commit{}, c.fenced(m.Highest)
			case fence && m.Highest == c.token:
				return Commit{Domain: c.domain, Token: c.token, ID: m.Last.ID, Seq: m.Seq, Highest: m.Highest, Time: m.Last.Time}, nil
			}
		}
		base := m
		if base == nil {
			base = &Manifest{}
		}
		entry := LogEntry{ID: c.id, Token: c.token, Holder: c.holder, Time: s.opts.Now().UTC(), Puts: len(c.puts), Deletes: len(c.deletes)}
		next := base.next(c.domain, c.token, entry, c.entries, c.deletes, s.opts.LogLimit)
		if needsFold(next) {
			folded, err := s.fold(ctx, next)
			if err != nil {
				return Commit{}, c.fail(uncertain, lastErr, err)
			}
			next = folded
		}
		_, err := s.putManifest(ctx, next, etag)
		if err == nil {
			return c.result(next, next.Last, false), nil
		}
		if !errors.Is(err, ErrConflict) {
			// Anything but a 409 (which applies nothing) leaves the
			// write uncertain until the read-back.
			if !uncertain || base.Seq < uncBase {
				uncBase = base.Seq
			}
			uncertain, lastErr = true, err
		}
		switch {
		case errors.Is(err, ErrPreconditionFailed), errors.Is(err, ErrNotFound):
			// Another commit landed first, or (after a retry underneath
			// us) our own did: read again and decide.
			s.opts.Logger.Debug("objstore: manifest changed, re-reading", "domain", c.domain, "commit", c.id)
		case errors.Is(err, ErrConflict):
			s.opts.Logger.Debug("objstore: conditional write conflict, backing off", "domain", c.domain, "commit", c.id)
			if werr := bo.Wait(ctx); werr != nil {
				return Commit{}, c.fail(uncertain, lastErr, fmt.Errorf("objstore: commit %s to %q: %w (last error: %v)", c.id, c.domain, werr, err))
			}
		default:
			s.opts.Logger.Warn("objstore: manifest write outcome ambiguous, reading back", "domain", c.domain, "commit", c.id, "err", err)
			if werr := bo.Wait(ctx); werr != nil {
				return Commit{}, c.unknown(err)
			}
		}
		var rerr error
		m, etag, rerr = s.loadManifest(ctx, c.domain)
		if rerr != nil {
			return Commit{}, c.fail(uncertain, lastErr, rerr)
		}
	}
}

// fail returns err, or an unknown-outcome error when an earlier write may
// have landed.
func (c *commit) fail(uncertain bool, lastErr, err error) error {
	if uncertain {
		return c.unknown(fmt.Errorf("%v; reading back failed: %w", lastErr, err))
	}
	return err
}

func (c *commit) unknown(err error) error {
	return &UnknownOutcomeError{Domain: c.domain, CommitID: c.id, Err: err}
}

func (c *commit) fenced(highest uint64) error {
	return &FencedError{Domain: c.domain, Token: c.token, Highest: highest}
}

// result describes the commit recorded by log entry e in manifest m.
func (c *commit) result(m *Manifest, e LogEntry, recovered bool) Commit {
	out := Commit{Domain: c.domain, Token: c.token, ID: c.id, Seq: e.Seq, Highest: m.Highest, Time: e.Time, Recovered: recovered}
	for _, ch := range c.puts {
		if en, ok := c.entries[ch.Key]; ok {
			out.Versions = append(out.Versions, Version{Key: ch.Key, Object: en.Version, Size: en.Size, SHA256: en.SHA256, Token: en.Token, Committed: e.Time})
		} else if v, ok, _ := m.overlayVersion(ch.Key); ok && strings.HasSuffix(v.Object, "-"+c.id) {
			out.Versions = append(out.Versions, v)
		}
	}
	return out
}

func validateCommit(domain string, token uint64, changes []Change) error {
	if err := ValidateDomain(domain); err != nil {
		return err
	}
	if err := ValidateToken(token); err != nil {
		return err
	}
	seen := make(map[string]bool, len(changes))
	for _, ch := range changes {
		if err := ValidateKey(ch.Key); err != nil {
			return err
		}
		if seen[ch.Key] {
			return &InvalidError{What: "key", Value: ch.Key, Reason: "appears twice in one commit"}
		}
		seen[ch.Key] = true
		switch {
		case ch.Delete && ch.Body != nil:
			return &InvalidError{What: "change", Value: ch.Key, Reason: "a delete has a body"}
		case !ch.Delete && ch.Body == nil:
			return &InvalidError{What: "change", Value: ch.Key, Reason: "a put has no body"}
		case !ch.Delete && ch.Size < -1:
			return &InvalidError{What: "size", Value: fmt.Sprint(ch.Size), Reason: "must be the exact length, or -1 when unknown"}
		}
		if !ch.Delete {
			if vk := VersionKey(domain, ch.Key, token, "0123456789abcdef0123456789abcdef"); len(vk) > MaxKeyLen {
				return &InvalidError{What: "key", Value: ch.Key, Reason: fmt.Sprintf("its version object key in domain %q would be %d bytes, over the limit of %d", domain, len(vk), MaxKeyLen)}
			}
		}
	}
	return nil
}

// newID returns a random 128-bit commit id in hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
