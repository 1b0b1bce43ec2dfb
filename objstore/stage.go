package objstore

import (
	"context"
	"fmt"
	"io"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// Stage uploads body as a value of key in domain under token, and
// publishes nothing: it returns a Receipt, which a committer publishes
// later, with any number of other receipts and changes, in one Commit
// (PutReceipt). size is body's exact length, or -1 when unknown. Many
// workers may stage under one token at once; nothing they stage is
// visible until the commit, and a receipt is published only by a commit
// at its own token.
//
// A staged value always gets a version object of its own, however small
// (it must be in the store before the commit that names it), under a
// fresh stage id: <domain>/_fence/v/<key>@<token>-s<32 hex digits>.
//
// Stage fails with a *FencedError, before uploading, when the manifest
// it reads (the Store's cached one, if any) shows a higher token; a
// worker fenced after that still uploads, but its receipts can never be
// published (the commit is fenced), and Collect deletes the objects once
// the domain's highest token has passed theirs. On a domain with no
// manifest yet, Stage first writes one fenced at token, as a first
// commit does, so that a version object never exists without a
// manifest.
func (s *Store) Stage(ctx context.Context, domain, key string, token uint64, body io.Reader, size int64) (Receipt, error) {
	if body == nil {
		return Receipt{}, &InvalidError{What: "change", Value: key, Reason: "a staged value has no body"}
	}
	if size < -1 {
		return Receipt{}, &InvalidError{What: "size", Value: fmt.Sprint(size), Reason: "must be the exact length, or -1 when unknown"}
	}
	c, vk, err := s.prepareStage(ctx, domain, key, token)
	if err != nil {
		return Receipt{}, err
	}
	e, err := c.uploadOne(ctx, Change{Key: key, Body: body, Size: size}, vk)
	if err != nil {
		return Receipt{}, fmt.Errorf("objstore: stage %q in domain %q: %w", key, domain, err)
	}
	return Receipt{
		Format: ReceiptFormat, Domain: domain, Key: key, Token: token, Object: vk,
		Size: e.Size, SHA256: e.SHA256, CRC32C: e.CRC32C, CRC32: e.CRC32, Staged: s.opts.Now().UTC(),
	}, nil
}

// prepareStage does what Stage and StageParts do before they upload
// anything: it checks domain, key and token, and the length of the
// staged version object's key; runs the capability probe; fails with a
// *FencedError when the manifest (the Store's cached one, if any) shows
// a higher token; checks with the Issuer a token above the manifest's;
// and writes the domain's first manifest, fenced at token, when there is
// none. It returns the commit that names the stage (its attempt is the
// fresh stage id) and the version object's key.
func (s *Store) prepareStage(ctx context.Context, domain, key string, token uint64) (*commit, string, error) {
	if err := s.CheckKey(domain, key, token); err != nil {
		return nil, "", err
	}
	c := &commit{s: s, domain: domain, token: token, id: newID(), attempt: newStageID(), holder: s.opts.Holder}
	if err := s.probe(ctx); err != nil {
		return nil, "", err
	}
	m, _, err := s.cachedManifest(ctx, domain)
	if err != nil {
		return nil, "", err
	}
	if m != nil && m.Highest > token {
		return nil, "", c.fenced(m.Highest, "")
	}
	if m == nil || token > m.Highest {
		if err := s.checkIssued(ctx, domain, token); err != nil {
			return nil, "", err
		}
	}
	if m == nil {
		if m, _, err = c.create(ctx); err != nil {
			return nil, "", err
		}
		if m != nil && m.Highest > token {
			return nil, "", c.fenced(m.Highest, "")
		}
	}
	return c, format.VersionKey(domain, key, token, c.attempt), nil
}

// CheckKey reports, without a request, whether a value of key can be
// written in domain at token: the checks Stage makes of its arguments
// before it writes anything (a valid domain, key and token, and a
// version object key within MaxKeyLen that the backend can store). A
// caller that keeps a value to commit later (as the S3 gateway keeps
// small ones) refuses a bad key at once with it, rather than failing the
// commit that would carry it.
func (s *Store) CheckKey(domain, key string, token uint64) error {
	if err := ValidateDomain(domain); err != nil {
		return err
	}
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := ValidateToken(token); err != nil {
		return err
	}
	attempt := newStageID()
	if n := format.VersionKeyLen(domain, key, token, len(attempt)); n > MaxKeyLen {
		return &InvalidError{What: "key", Value: key, Reason: fmt.Sprintf("its staged version object key in domain %q would be %d bytes, over the limit of %d", domain, n, MaxKeyLen)}
	}
	if kc, ok := s.b.(driver.KeyChecker); ok {
		if err := kc.CheckKey(format.VersionKey(domain, key, token, attempt)); err != nil {
			return fmt.Errorf("objstore: key %q in domain %q cannot be stored on %s: %w", key, domain, s.b.Location(), err)
		}
	}
	return nil
}

// CheckFenced returns a *FencedError when what the Store last read of
// domain's manifest shows a token above token, and nil otherwise, without
// a request: it reads nothing when the Store has no manifest of domain
// in memory. A caller that keeps values to commit later refuses a write
// with it as early as Stage would.
func (s *Store) CheckFenced(domain string, token uint64) error {
	if m, _, ok := s.cache.get(domain); ok && m != nil && m.Highest > token {
		return &FencedError{Domain: domain, Token: token, Highest: m.Highest}
	}
	return nil
}
