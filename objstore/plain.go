package objstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/internal/cas"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// Plain copies (Options.PlainCopies) put each committed key where a
// client that does not speak fence finds it: at <domain>/<key>, whole, as
// its bytes. Every copy carries, in object metadata, the domain and the
// manifest seq of the commit it comes from, and is written only with
// If-Match on the plain object that was read, after checking that that
// object comes from an older commit of the same domain; a copy from an
// older commit therefore never replaces one from a newer commit. See
// docs/design.md, "Plain copies".
const (
	metaDomain = "fence-domain"
	metaSeq    = "fence-seq"
	metaToken  = "fence-token"
	metaCommit = "fence-commit"
)

// ErrPlainCopy: a commit landed, but the plain copy of some of its keys
// could not be written. Its *PlainCopyError names them.
var ErrPlainCopy = errors.New("objstore: plain copy failed")

// PlainCopyError reports plain copies that failed after their commit
// landed: the commit is applied (fence's readers see it); only the plain
// objects of Keys may be older than it. Store.SyncPlain writes them.
type PlainCopyError struct {
	Domain   string
	CommitID string
	Seq      uint64
	Keys     []string
	Err      error
}

func (e *PlainCopyError) Error() string {
	keys := e.Keys
	if len(keys) > 5 {
		keys = keys[:5]
	}
	return fmt.Sprintf("objstore: commit %s landed in domain %q at seq %d, but the plain copies of %d keys (%s) failed; Store.SyncPlain ('fence sync-plain') writes them: %v",
		e.CommitID, e.Domain, e.Seq, len(e.Keys), strings.Join(keys, ", "), e.Err)
}

// Is makes errors.Is(err, ErrPlainCopy) true.
func (e *PlainCopyError) Is(target error) bool { return target == ErrPlainCopy }
func (e *PlainCopyError) Unwrap() error        { return e.Err }

// plainKey returns the object key of key's plain copy in domain.
func plainKey(domain, key string) string { return domain + "/" + key }

// copyPlain writes the plain copies of the commit res, which applied
// changes: a copy of each put that is still current, and the removal of
// each delete. It then reads the manifest again and repairs any key that
// a newer commit changed meanwhile (see verifyPlain).
func (s *Store) copyPlain(ctx context.Context, res CommitResult, changes []Change) error {
	fail := func(keys []string, err error) error {
		return &PlainCopyError{Domain: res.Domain, CommitID: res.ID, Seq: res.Seq, Keys: keys, Err: err}
	}
	var all []string
	for _, ch := range changes {
		all = append(all, ch.Key)
	}
	if !driver.CapabilitiesOf(s.b).Metadata {
		return fail(all, fmt.Errorf("the backend at %s keeps no object metadata, which fenced plain copies need: %w", s.b.Location(), driver.ErrUnsupported))
	}
	current := make(map[string]Version, len(res.Versions))
	for _, v := range res.Versions {
		current[v.Key] = v
	}
	tag := plainTag{domain: res.Domain, seq: res.Seq, token: res.Token, commit: res.ID}
	var (
		mu     sync.Mutex
		failed []string
		errs   []error
	)
	var g errgroup.Group
	g.SetLimit(s.opts.UploadParallelism)
	for _, ch := range changes {
		g.Go(func() error {
			var err error
			switch v, ok := current[ch.Key]; {
			case ch.Delete:
				err = s.deletePlain(ctx, res.Domain, ch.Key, tag)
			case ok:
				err = s.putPlain(ctx, v, tag)
			default:
				return nil // superseded already: a newer commit copies it
			}
			if err != nil {
				mu.Lock()
				failed, errs = append(failed, ch.Key), append(errs, err)
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
	if len(failed) > 0 {
		return fail(failed, errors.Join(errs...))
	}
	if err := s.verifyPlain(ctx, res.Domain, all); err != nil {
		return fail(all, err)
	}
	return nil
}

// plainTag is what a plain copy's metadata records: the commit it is
// from.
type plainTag struct {
	domain, commit string
	seq, token     uint64
}

func (t plainTag) metadata() map[string]string {
	return map[string]string{
		metaDomain: t.domain,
		metaSeq:    strconv.FormatUint(t.seq, 10),
		metaToken:  strconv.FormatUint(t.token, 10),
		metaCommit: t.commit,
	}
}

// plainState is what a plain object's metadata says about it.
type plainState struct {
	exists bool
	domain string // "" when the object has no fence metadata
	seq    uint64
}

// headPlain reads key's plain object's state and ETag.
func (s *Store) headPlain(ctx context.Context, key string) (plainState, string, error) {
	info, err := s.b.Head(ctx, key)
	if errors.Is(err, driver.ErrNotFound) {
		return plainState{}, "", nil
	}
	if err != nil {
		return plainState{}, "", fmt.Errorf("objstore: read plain copy %q: %w", key, err)
	}
	st := plainState{exists: true, domain: info.Metadata[metaDomain]}
	st.seq, _ = strconv.ParseUint(info.Metadata[metaSeq], 10, 64)
	return st, info.ETag, nil
}

// check refuses to replace a plain object that another domain wrote (a
// nested domain's key can have the same plain key).
func (st plainState) check(key, domain string) error {
	if st.domain != "" && st.domain != domain {
		return fmt.Errorf("objstore: plain copy %q belongs to domain %q, not %q (a nested domain's key has the same plain key); not replaced", key, st.domain, domain)
	}
	return nil
}

// putPlain writes v's bytes to its plain object, tagged with t, unless
// the plain object comes from t's commit or a newer one.
func (s *Store) putPlain(ctx context.Context, v Version, t plainTag) error {
	key := plainKey(t.domain, v.Key)
	u := &plainCopy{s: s, key: key, v: v, t: t}
	cur, etag, err := s.headPlain(ctx, key)
	if err != nil {
		return err
	}
	return cas.Run(ctx, s.b, cas.Update{Key: key, Logger: s.opts.Logger, LogAttrs: []any{"domain", t.domain, "plain", key}}, cas.Updater[plainState](u), cur, etag)
}

// plainCopy is one plain copy's side of the conditional update of its
// plain object.
type plainCopy struct {
	s   *Store
	key string
	v   Version
	t   plainTag
}

func (u *plainCopy) Read(ctx context.Context) (plainState, string, error) {
	return u.s.headPlain(ctx, u.key)
}

func (u *plainCopy) Decide(ctx context.Context, cur plainState) (cas.Write, bool, error) {
	if err := cur.check(u.key, u.t.domain); err != nil {
		return cas.Write{}, true, err
	}
	if cur.seq >= u.t.seq {
		return cas.Write{}, true, nil // from this commit or a newer one
	}
	// The body is verified as it is sent: a version whose bytes do not
	// match the manifest fails the copy rather than publish them.
	body := u.s.inlineReader(u.v)
	if !u.v.Inline {
		rc, _, err := u.s.getVersion(ctx, u.v, 0, 0)
		if err != nil {
			return cas.Write{}, true, fmt.Errorf("objstore: plain copy %q: read version %q: %w", u.key, u.v.Object, err)
		}
		body = u.s.newReader(u.v, rc)
	}
	return cas.Write{Body: body, Size: u.v.Size, Metadata: u.t.metadata(), BodyErr: body.checkErr}, false, nil
}

func (u *plainCopy) Wrote(context.Context, string) {}
func (u *plainCopy) Failed(plainState, error)      {}
func (u *plainCopy) Stop(err error) error {
	return fmt.Errorf("objstore: plain copy %q: %w", u.key, err)
}

// deletePlain deletes key's plain object unless it comes from t's commit
// or a newer one. S3-compatible stores ignore If-Match on DELETE, so
// this is a check followed by an unconditional delete: a newer commit's
// copy written between the two would be deleted, which verifyPlain then
// repairs.
func (s *Store) deletePlain(ctx context.Context, domain, key string, t plainTag) error {
	pk := plainKey(domain, key)
	cur, _, err := s.headPlain(ctx, pk)
	switch {
	case err != nil:
		return err
	case !cur.exists || cur.seq >= t.seq:
		return nil
	}
	if err := cur.check(pk, domain); err != nil {
		return err
	}
	if err := s.b.Delete(ctx, pk); err != nil {
		return fmt.Errorf("objstore: delete plain copy %q: %w", pk, err)
	}
	return nil
}

// verifyPlain reads domain's manifest again and, for each of keys that a
// newer commit changed while its plain copy was being written, writes
// the current version's copy (or removes the copy), tagged with the
// manifest's seq. A copy from an older commit can land over a newer one
// in two races only (the newer copy had the same bytes as the object the
// older one replaced, so If-Match could not tell them apart; or a delete
// met a newer copy): this puts the newest back before Commit returns.
func (s *Store) verifyPlain(ctx context.Context, domain string, keys []string) error {
	m, _, err := s.loadManifest(ctx, domain)
	if err != nil {
		return err
	}
	st := s.state(m)
	t := plainTag{domain: domain, seq: m.Seq, token: m.Last.Token, commit: m.Last.ID}
	for _, k := range keys {
		e, ok, err := st.Lookup(ctx, k)
		if err != nil {
			return err
		}
		if !ok {
			if err := s.deletePlain(ctx, domain, k, t); err != nil {
				return err
			}
			continue
		}
		pk := plainKey(domain, k)
		cur, _, err := s.headPlain(ctx, pk)
		if err != nil {
			return err
		}
		if cur.exists && cur.domain == domain && cur.seq >= entrySeq(m, e) {
			continue // a copy from the commit that wrote e, or newer
		}
		if err := s.putPlain(ctx, versionOf(k, e), t); err != nil {
			return err
		}
	}
	return nil
}

// entrySeq returns the seq of the commit that wrote entry e in m, or m's
// seq when the log no longer holds it (a copy tagged with an older seq is
// then rewritten: harmless, it has the same bytes).
func entrySeq(m *format.Manifest, e format.Entry) uint64 {
	for i := len(m.Log) - 1; i >= 0; i-- {
		l := m.Log[i]
		if l.Token == e.Token && strings.HasSuffix(e.Version, "-"+l.AttemptID()) {
			return l.Seq
		}
	}
	return m.Seq
}

// SyncPlain brings domain's plain copies up to its current manifest: it
// writes the copy of every live key whose plain object is missing or
// older, and removes the plain objects this domain wrote for keys that
// are no longer live. It is how to recover from a *PlainCopyError, and
// how to turn plain copies on for a domain that has keys. It needs no
// lease: every write it makes is tagged with the manifest's seq, so it
// never replaces a newer commit's copy.
func (s *Store) SyncPlain(ctx context.Context, domain string) error {
	if err := ValidateDomain(domain); err != nil {
		return err
	}
	if !driver.CapabilitiesOf(s.b).Metadata {
		return fmt.Errorf("objstore: sync plain copies of %q: the backend at %s keeps no object metadata, which fenced plain copies need: %w", domain, s.b.Location(), driver.ErrUnsupported)
	}
	sn, err := s.Snapshot(ctx, domain)
	if err != nil {
		return err
	}
	live, err := sn.List(ctx, nil)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(live))
	isLive := make(map[string]bool, len(live))
	for _, v := range live {
		keys, isLive[v.Key] = append(keys, v.Key), true
	}
	var gone []string
	err = s.b.List(ctx, domain+"/", func(o driver.ObjectInfo) error {
		if k := strings.TrimPrefix(o.Key, domain+"/"); !isLive[k] && ValidateKey(k) == nil {
			gone = append(gone, k) // not fence's own objects: their keys hold _fence
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("objstore: sync plain copies of %q: list: %w", domain, err)
	}
	for _, k := range gone {
		st, _, err := s.headPlain(ctx, plainKey(domain, k))
		if err != nil {
			return err
		}
		if st.domain == domain { // another domain's, or nobody's: not ours to remove
			keys = append(keys, k)
		}
	}
	return s.verifyPlain(ctx, domain, keys)
}
