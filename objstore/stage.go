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
	if err := ValidateDomain(domain); err != nil {
		return nil, "", err
	}
	if err := ValidateKey(key); err != nil {
		return nil, "", err
	}
	if err := ValidateToken(token); err != nil {
		return nil, "", err
	}
	if n := format.VersionKeyLen(domain, key, token, len(newStageID())); n > MaxKeyLen {
		return nil, "", &InvalidError{What: "key", Value: key, Reason: fmt.Sprintf("its staged version object key in domain %q would be %d bytes, over the limit of %d", domain, n, MaxKeyLen)}
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
	vk := format.VersionKey(domain, key, token, c.attempt)
	if kc, ok := s.b.(driver.KeyChecker); ok {
		if err := kc.CheckKey(vk); err != nil {
			return nil, "", fmt.Errorf("objstore: key %q in domain %q cannot be stored on %s: %w", key, domain, s.b.Location(), err)
		}
	}
	return c, vk, nil
}
