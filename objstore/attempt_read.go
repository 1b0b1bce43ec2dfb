package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// MaxFencedAttempts is the number of fenced-attempt records of one domain
// that Store.FencedAttempts reads when asked for no fewer.
const MaxFencedAttempts = 100

// fencedReaders bounds the records read at once.
const fencedReaders = 8

// FencedOptions selects fenced-attempt records. nil means defaults.
type FencedOptions struct {
	// Limit is the most records returned; 0 means MaxFencedAttempts.
	Limit int
	// NamesOnly returns what the records' object keys and listing say
	// (Domain, Token, FencedBy, Recorded, Object) without reading the
	// records: one listing, no reads.
	NamesOnly bool
}

// FencedAttempts returns the records of domain's attempts that a Store
// refused as stale (see docs/observability.md, "Fenced attempts on
// record"): at most opts.Limit of them, those refused by the highest
// tokens first;
// more says there were more records. A record stays until fence gc
// collects it, after its grace period. A record whose content cannot be
// read is returned with Error set; one collected meanwhile is left out.
//
// It lists the domain's records in key order, which is newest refusing
// token first, stops after the limit, and reads those records.
func (s *Store) FencedAttempts(ctx context.Context, domain string, opts *FencedOptions) (out []FencedAttempt, more bool, err error) {
	if err := ValidateDomain(domain); err != nil {
		return nil, false, err
	}
	var o FencedOptions
	if opts != nil {
		o = *opts
	}
	if o.Limit < 0 {
		return nil, false, &InvalidError{What: "limit", Value: fmt.Sprint(o.Limit), Reason: "negative"}
	}
	limit := o.Limit
	if limit == 0 {
		limit = MaxFencedAttempts
	}
	var objs []driver.ObjectInfo
	err = s.b.List(ctx, format.FencedPrefix(domain), func(o driver.ObjectInfo) error {
		if _, perr := format.ParseFencedKey(o.Key); perr != nil {
			return nil // not a record
		}
		if len(objs) == limit {
			more = true
			return errStopList
		}
		objs = append(objs, o)
		return nil
	})
	if err != nil && !errors.Is(err, errStopList) {
		return nil, false, fmt.Errorf("objstore: list the fenced attempts of %q: %w", domain, err)
	}
	if o.NamesOnly {
		for _, obj := range objs {
			out = append(out, named(obj))
		}
		return out, more, nil
	}
	all := make([]FencedAttempt, len(objs))
	found := make([]bool, len(objs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fencedReaders)
	for i, o := range objs {
		g.Go(func() error {
			a, ok, err := s.readFenced(gctx, o)
			all[i], found[i] = a, ok
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, false, err
	}
	for i, a := range all {
		if found[i] {
			out = append(out, a)
		}
	}
	return out, more, nil
}

// readFenced reads the record o. ok is false when it is gone.
func (s *Store) readFenced(ctx context.Context, o driver.ObjectInfo) (a FencedAttempt, ok bool, err error) {
	a = named(o)
	n, _ := format.ParseFencedKey(o.Key)
	rc, info, err := s.b.Get(ctx, o.Key, driver.GetOptions{})
	if errors.Is(err, driver.ErrNotFound) {
		return a, false, nil
	}
	if err != nil {
		return a, false, fmt.Errorf("objstore: read fenced-attempt record %q: %w", o.Key, err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(rc, format.MaxFencedSize+1)); err != nil {
		return a, false, fmt.Errorf("objstore: read fenced-attempt record %q: %w", o.Key, err)
	}
	if !info.Modified.IsZero() {
		a.Recorded = info.Modified
	}
	r, err := format.DecodeFenced(n, o.Key, buf.Bytes())
	if err != nil {
		a.Error = err.Error()
		return a, true, nil
	}
	a.Reason, a.ClaimedBy, a.Holder, a.CommitID, a.Time = r.Reason, r.ClaimedBy, r.Holder, r.CommitID, r.Time
	a.Fence = r.Puts == 0 && r.Deletes == 0
	a.Puts, a.Deletes, a.DeletedKeys, a.KeysTruncated = r.Puts, r.Deletes, r.DeletedKeys, r.KeysTruncated
	for _, p := range r.PutKeys {
		a.PutKeys, a.PutSizes = append(a.PutKeys, p.Key), append(a.PutSizes, p.Size)
	}
	return a, true, nil
}

// named is what record o's key and listing say.
func named(o driver.ObjectInfo) FencedAttempt {
	n, _ := format.ParseFencedKey(o.Key)
	return FencedAttempt{Domain: n.Domain, Token: n.Token, FencedBy: n.FencedBy, Recorded: o.Modified, Object: o.Key}
}
