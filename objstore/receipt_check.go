package objstore

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/internal/testhook"
	"github.com/fencedstore/fence/objstore/driver"
)

// A commit that publishes receipts (PutReceipt) checks each one twice
// before it writes anything. validateReceipt, with the commit's
// arguments: the receipt is well formed, and its domain and token are
// the commit's own (a receipt at another token is refused even when the
// commit's token is higher: Collect may already be deleting it). Then
// checkReceipts, against the store: its version object exists, with the
// receipt's size. The content's checksums are not read back: no backend
// reports a SHA-256 or CRC of an object without reading it, so they are
// checked by every read instead, as any version's are.

// validateReceipt checks r against a commit to domain at token.
func validateReceipt(domain string, token uint64, r *Receipt) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if testhook.SkipReceiptCheck.Load() {
		return nil // a negative control of the fault suite only
	}
	refuse := func(reason string) error {
		return &ReceiptError{Domain: domain, Token: token, Key: r.Key, Object: r.Object, Reason: reason}
	}
	switch {
	case r.Domain != domain:
		return refuse(fmt.Sprintf("it was staged in domain %q", r.Domain))
	case r.Token != token:
		return refuse(fmt.Sprintf("it was staged at token %d; a receipt is published only by a commit at its own token", r.Token))
	}
	return nil
}

// checkReceipts checks, in parallel (at most Options.UploadParallelism
// at once), that the version object of every receipt among c's puts
// exists with the receipt's size.
func (c *commit) checkReceipts(ctx context.Context) error {
	if testhook.SkipReceiptCheck.Load() {
		return nil // a negative control of the fault suite only
	}
	var g *errgroup.Group
	var gctx context.Context
	for _, ch := range c.puts {
		r := ch.staged
		if r == nil {
			continue
		}
		if g == nil {
			g, gctx = errgroup.WithContext(ctx)
			g.SetLimit(c.s.opts.UploadParallelism)
		}
		g.Go(func() error { return c.checkReceipt(gctx, r) })
	}
	if g == nil {
		return nil
	}
	return g.Wait()
}

// refused returns the outcome of c when checkReceipts failed with err.
// A missing version object may mean that the domain was fenced since
// the manifest c decided on (Collect deletes a fenced token's staged
// versions): the manifest is then read again, and c is judged on it as
// any commit is, so that a stale commit is reported fenced.
func (c *commit) refused(ctx context.Context, err error) (CommitResult, error) {
	var re *ReceiptError
	if errors.As(err, &re) && errors.Is(re.Err, driver.ErrNotFound) {
		if m, _, merr := c.s.loadManifest(ctx, c.domain); merr == nil && m != nil {
			if res, derr, done := c.decide(m); done {
				return res, derr
			}
		}
	}
	return CommitResult{}, c.fail(err)
}

// checkReceipt checks one receipt's version object with a HEAD.
func (c *commit) checkReceipt(ctx context.Context, r *Receipt) error {
	refuse := func(reason string, err error) error {
		return &ReceiptError{Domain: c.domain, Token: c.token, Key: r.Key, Object: r.Object, Reason: reason, Err: err}
	}
	info, err := c.s.b.Head(ctx, r.Object)
	switch {
	case errors.Is(err, driver.ErrNotFound):
		return refuse("its version object does not exist (it was never uploaded, or was garbage-collected after its token was fenced)", err)
	case err != nil:
		return fmt.Errorf("objstore: commit to %q: check receipt for key %q (object %q): %w", c.domain, r.Key, r.Object, err)
	case info.Size != r.Size:
		return refuse(fmt.Sprintf("its version object has %d bytes, the receipt says %d", info.Size, r.Size), nil)
	}
	return nil
}
