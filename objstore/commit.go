package objstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fencedstore/fence/internal/format"
)

// Commit publishes changes to domain atomically under token: either every
// change becomes visible, in one manifest write, or none does. It fails
// with a *FencedError when the domain has accepted a higher token; a token
// equal to the highest is accepted. A refused commit is also recorded in
// the store, best effort, before Commit returns (see FencedAttempts).
//
// The new bytes are first uploaded to write-once version objects; nothing
// reads them until the manifest names them. When a reply is lost or the
// store answers with a 5xx, 409 or 412 that may hide a write that landed,
// Commit reads the manifest back and reports success if it holds the
// commit's id. It returns an *UnknownOutcomeError (ErrOutcomeUnknown) only
// when that cannot be decided before ctx ends or the manifest's log has
// moved past the commit, and never reports "fenced" for a commit that may
// have landed. Retry such a commit with the error's Retry options: the
// retry decides as well as the first attempt could, and applies the commit
// at most once. docs/design.md has the whole outcome table.
//
// With Options.PlainCopies, a commit that landed is then copied to the
// keys' plain objects (see PlainCopyError for a copy that failed: the
// commit itself landed).
func (s *Store) Commit(ctx context.Context, domain string, token uint64, changes []Change, opts *CommitOptions) (CommitResult, error) {
	start := time.Now()
	res, err := s.commit(ctx, domain, token, changes, opts)
	if err != nil {
		s.recordFenced(ctx, domain, changes, opts, err)
	}
	s.observeCommit(ctx, start, domain, token, changes, opts, res, err)
	if err != nil || !s.opts.PlainCopies {
		return res, err
	}
	return res, s.copyPlain(ctx, res, changes)
}

// commit is Commit without the plain copies.
func (s *Store) commit(ctx context.Context, domain string, token uint64, changes []Change, opts *CommitOptions) (CommitResult, error) {
	if err := validateCommit(domain, token, changes); err != nil {
		return CommitResult{}, err
	}
	var o CommitOptions
	if opts != nil {
		o = *opts
	}
	c := &commit{s: s, domain: domain, token: token, id: o.ID, holder: o.Holder}
	if o.ID == "" {
		if o.After != 0 {
			return CommitResult{}, &InvalidError{What: "option", Value: fmt.Sprint(o.After), Reason: "After marks a retry and needs the commit's ID"}
		}
		c.id = newID()
		c.attempt = c.id
	} else {
		if reason := format.ValidSuffix(o.ID); reason != "" {
			return CommitResult{}, &InvalidError{What: "commit id", Value: o.ID, Reason: reason}
		}
		// A retry: the first attempt may have landed at any seq above
		// After. It uploads under a fresh attempt id, never re-using an
		// object an earlier attempt wrote.
		c.attempt = newID()
		c.uncertain, c.uncBase, c.lastErr = true, o.After, errRetry
	}
	if c.holder == "" {
		c.holder = s.opts.Holder
	}
	c.claim = s.claimFor(domain, token, c.id)
	if err := s.probe(ctx); err != nil {
		return CommitResult{}, err
	}
	for _, ch := range changes {
		if ch.Delete {
			c.deletes = append(c.deletes, ch.Key)
		} else {
			c.puts = append(c.puts, ch)
		}
	}
	m, etag, err := s.cachedManifest(ctx, domain)
	if err == nil && m != nil && c.uncertain {
		// A retry decides on the current manifest, not a cached one.
		m, etag, err = s.loadManifest(ctx, domain)
	}
	if err != nil {
		return CommitResult{}, c.fail(err) // a retry's first attempt may have landed
	}
	if m == nil {
		c.uncertain = false // nothing was ever committed: ours did not land
	} else {
		if c.uncertain {
			// An earlier attempt's write may still be in flight, based
			// on this manifest at the latest.
			c.pending, c.pendingBase = true, m.Seq
		}
		if res, err, done := c.decide(m); done {
			return res, err
		}
	}
	if m == nil || token > m.Highest {
		if err := s.checkIssued(ctx, domain, token); err != nil {
			return CommitResult{}, c.fail(err)
		}
	}
	if err := c.checkReceipts(ctx); err != nil {
		return c.refused(ctx, err)
	}
	if m == nil && len(c.puts) > 0 {
		// Create the manifest before any version exists, so that versions
		// without a manifest always mean a lost manifest (which fails
		// closed) and never an interrupted first commit.
		if m, etag, err = c.create(ctx); err != nil {
			return CommitResult{}, err
		}
		if res, err, done := c.decide(m); done {
			return res, err
		}
	}
	c.stale = m != nil && !c.uncertain
	err = c.upload(ctx)
	if c.fresh != nil {
		// Revalidated while uploading (see revalidate): a holder fenced
		// since the cached manifest is told so, its upload cut short.
		if res, err, done := c.decide(c.fresh); done {
			return res, err
		}
		m, etag = c.fresh, c.freshETag
	}
	if err != nil {
		return CommitResult{}, c.fail(err)
	}
	res, err := s.publishGrouped(ctx, c, m, etag)
	if err == nil {
		s.claimSettle(domain, c.claim)
	}
	return res, err
}

// errRetry is the reason a retry starts uncertain: the first attempt's
// outcome was unknown.
var errRetry = errors.New("an earlier attempt of this commit may have landed")

// create writes domain's first manifest with a fence of its own at c's
// token, and returns the manifest it then reads. The fence is a separate
// commit: if its outcome is unknown, c itself has written nothing, so c
// fails plainly rather than with an unknown outcome that a retry of c's
// id could never settle.
func (c *commit) create(ctx context.Context) (*format.Manifest, string, error) {
	first := &commit{s: c.s, domain: c.domain, token: c.token, holder: c.holder, id: newID(), creating: true}
	first.attempt = first.id
	c.s.claimAdd(c.claim, first.id)
	if _, err := first.publish(ctx, nil, ""); err != nil {
		if errors.Is(err, ErrOutcomeUnknown) {
			return nil, "", fmt.Errorf("objstore: commit %s to %q not applied: creating the domain's manifest: %v", c.id, c.domain, err)
		}
		return nil, "", err
	}
	return c.s.loadManifest(ctx, c.domain)
}

// Put commits one key. size is body's exact length, or -1 when unknown.
func (s *Store) Put(ctx context.Context, domain, key string, token uint64, body io.Reader, size int64) (CommitResult, error) {
	return s.Commit(ctx, domain, token, []Change{PutReader(key, body, size)}, nil)
}

// Delete commits the removal of key from domain. Deleting a key that is
// not live is not an error; the commit still records the token.
func (s *Store) Delete(ctx context.Context, domain, key string, token uint64) (CommitResult, error) {
	return s.Commit(ctx, domain, token, []Change{DeleteKey(key)}, nil)
}

// Fence raises domain's highest accepted token to token without writing
// data. A new lease holder calls it before reading or writing, so that the
// previous holder's late writes are rejected even before the new holder's
// first write. It fails with a *FencedError when the highest token is
// higher, and also when it already equals token but another commit raised
// it there: one token belongs to one acquisition, so a second holder given
// the same token (by a coordinator whose records were wiped mid-takeover)
// is refused rather than let in beside the first. To retry a fence whose
// outcome was unknown, use Commit with no changes and the error's Retry
// options.
func (s *Store) Fence(ctx context.Context, domain string, token uint64) (CommitResult, error) {
	return s.Commit(ctx, domain, token, nil, nil)
}

// commit is the state of one Commit call: one attempt of one commit.
type commit struct {
	s       *Store
	domain  string
	token   uint64
	id      string // the commit's id, the same for every attempt
	attempt string // this attempt's id: the suffix of the objects it writes
	holder  string
	puts    []Change
	deletes []string
	entries map[string]format.Entry // uploaded versions, by key

	// uncertain: a manifest write of this commit (by this attempt, or by
	// an earlier one when this is a retry) may have landed unseen, based
	// on a manifest no older than seq uncBase. lastErr is why.
	uncertain bool
	uncBase   uint64
	lastErr   error
	// pending: the last failed manifest write, based on seq pendingBase,
	// may still land (it may be in flight), because no manifest read
	// since has moved past its base. Clearing uncertain lets the commit
	// write again on the same base (at most one of the two can land), but
	// while pending, no exit may report the commit as not applied.
	pending     bool
	pendingBase uint64
	// creating marks the fence that creates a domain's manifest for a
	// data commit: it claims no token, so another writer's manifest at
	// the same token is as good as its own.
	creating bool
	// stale: the manifest the commit decided on came from the Store's
	// cache, so a large upload revalidates it meanwhile; fresh and
	// freshETag are what that read found (see revalidate).
	stale     bool
	fresh     *format.Manifest
	freshETag string
	// claim, when set, makes the commit claim its token as a fence does
	// (see Store.Claim): a domain raised to it by a commit that is not
	// the claim's own refuses it.
	claim *claim
	// packs holds the packs this commit has written (see spill).
	packs map[string]bool
}

func (c *commit) isFence() bool { return len(c.puts) == 0 && len(c.deletes) == 0 }

// decide judges c against manifest m, before any write and after every
// read-back. done is false when c may (and must) be written on top of m.
//
// A write that may have landed unseen is settled by m's log: our commit id
// in it (it landed), or a log that reaches back to the seq after uncBase
// without it (it did not, and no longer can: its If-Match is stale, or it
// races our next write on the same If-Match). A highest token below ours
// settles it too, since a landed write would have raised it. Until then
// the commit is not reported fenced, and is not written again (that could
// apply it twice), except a fence, which changes nothing the second time.
func (c *commit) decide(m *format.Manifest) (res CommitResult, err error, done bool) {
	if e, ok := m.HasCommit(c.id); ok {
		return c.result(m, e, true), nil, true
	}
	if c.pending && m.Seq > c.pendingBase {
		c.pending = false // its If-Match is stale: it can no longer land
	}
	if c.uncertain && (m.Covers(c.uncBase) || m.Highest < c.token) {
		c.uncertain = false
	}
	switch {
	case c.uncertain && (m.Highest > c.token || !c.isFence()):
		return CommitResult{}, c.unknown(fmt.Errorf("the manifest's log (seq %d) no longer reaches back to seq %d: %w", m.Seq, c.uncBase+1, c.lastErr)), true
	case m.Highest > c.token:
		return CommitResult{}, c.fenced(m.Highest, ""), true
	case (c.isFence() || c.claim != nil) && m.Highest == c.token:
		// One token belongs to one acquisition: only the commit that
		// raised the domain to it (or, under a claim, any of the claim's
		// own commits) may fence at it again or, claiming, write at it.
		by, _ := m.RaisedBy()
		if by.ID != c.id && !c.creating && !c.s.claimOwns(c.claim, by.ID) {
			return CommitResult{}, c.fenced(m.Highest, by.ID), true
		}
		if c.isFence() {
			return CommitResult{Domain: c.domain, Token: c.token, ID: c.id, Seq: by.Seq, Highest: m.Highest, Time: by.Time, Recovered: true}, nil, true
		}
	}
	return CommitResult{}, nil, false
}

// fail returns err, or an unknown-outcome error when an earlier write may
// have landed or may still land.
func (c *commit) fail(err error) error {
	if c.uncertain || c.pending {
		return c.unknown(fmt.Errorf("%v; then: %w", c.lastErr, err))
	}
	return err
}

func (c *commit) unknown(err error) error {
	return &UnknownOutcomeError{Domain: c.domain, CommitID: c.id, Token: c.token, After: c.uncBase, Err: err}
}

// fenced reports c rejected: the domain's highest token is above c's, or
// equal to it but raised there by commit claimedBy ("" when unknown).
func (c *commit) fenced(highest uint64, claimedBy string) error {
	e := &FencedError{Domain: c.domain, Token: c.token, Highest: highest, CommitID: c.id}
	if highest == c.token {
		e.ClaimedBy = claimedBy
		if e.ClaimedBy == "" {
			e.ClaimedBy = "an earlier commit"
		}
	}
	return e
}

// result describes the commit recorded by log entry e in manifest m.
func (c *commit) result(m *format.Manifest, e format.LogEntry, recovered bool) CommitResult {
	out := CommitResult{Domain: c.domain, Token: c.token, ID: c.id, Seq: e.Seq, Highest: m.Highest, Time: e.Time, Recovered: recovered}
	add := func(v Version) {
		if out.Versions == nil { // sized once, not doubled per key; still nil when none
			out.Versions = make([]Version, 0, len(c.puts))
		}
		out.Versions = append(out.Versions, v)
	}
	for _, ch := range c.puts {
		if en, ok := c.entries[ch.Key]; ok && e.AttemptID() == c.attempt {
			v := versionOf(ch.Key, en)
			v.Committed = e.Time
			add(v)
		} else if en, ok, _ := m.Overlay(ch.Key); ok && (strings.HasSuffix(en.Version, "-"+e.AttemptID()) || ch.staged != nil && en.Version == ch.staged.Object) {
			// Landed by an earlier attempt, and still current.
			add(versionOf(ch.Key, en))
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
		case ch.staged != nil:
			if err := validateReceipt(domain, token, ch.staged); err != nil {
				return err
			}
			continue
		case !ch.Delete && ch.Body == nil:
			return &InvalidError{What: "change", Value: ch.Key, Reason: "a put has no body"}
		case !ch.Delete && ch.Size < -1:
			return &InvalidError{What: "size", Value: fmt.Sprint(ch.Size), Reason: "must be the exact length, or -1 when unknown"}
		}
		if !ch.Delete {
			if n := format.VersionKeyLen(domain, ch.Key, token, len("0123456789abcdef0123456789abcdef")); n > MaxKeyLen {
				return &InvalidError{What: "key", Value: ch.Key, Reason: fmt.Sprintf("its version object key in domain %q would be %d bytes, over the limit of %d", domain, n, MaxKeyLen)}
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
