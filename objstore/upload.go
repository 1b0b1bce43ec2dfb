package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/internal/backoff"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// upload writes every put of c to its write-once version object, in
// parallel, or keeps it inline when it is small (see inline), and records
// size and SHA-256 in c.entries. A failed upload fails the commit with
// nothing published: versions are invisible until the manifest names
// them.
func (c *commit) upload(ctx context.Context) error {
	vks, err := c.versionKeys()
	if err != nil {
		return err
	}
	c.entries = make(map[string]format.Entry, len(c.puts))
	var (
		mu          sync.Mutex
		revalidated <-chan struct{}
		// The uploads' group, made for the first put that is not kept
		// inline: a commit of small values starts no goroutine.
		g      *errgroup.Group
		gctx   context.Context
		cancel context.CancelCauseFunc
	)
	for i, ch := range c.puts {
		vk := vks[i]
		if ch.staged != nil {
			mu.Lock()
			c.entries[ch.Key] = ch.staged.entry() // checked by checkReceipts
			mu.Unlock()
			continue
		}
		e, ch, ok, err := c.inline(ch, vk)
		if err != nil {
			if g == nil {
				return err
			}
			g.Go(func() error { return err })
			break
		}
		if ok {
			mu.Lock()
			c.entries[ch.Key] = e
			mu.Unlock()
			continue
		}
		if g == nil {
			var uctx context.Context
			uctx, cancel = context.WithCancelCause(ctx)
			defer cancel(nil)
			g, gctx = errgroup.WithContext(uctx)
			g.SetLimit(c.s.opts.UploadParallelism)
		}
		if revalidated == nil && c.stale && (ch.Size < 0 || ch.Size > largeUpload) {
			revalidated = c.revalidate(ctx, cancel)
		}
		g.Go(func() error {
			e, err := c.uploadOne(gctx, ch, vk)
			if err != nil {
				return err
			}
			mu.Lock()
			c.entries[ch.Key] = e
			mu.Unlock()
			return nil
		})
	}
	if g == nil {
		return nil // every put is inline
	}
	err = g.Wait()
	if revalidated != nil {
		<-revalidated
	}
	return err
}

// largeUpload is the body size past which (or a body of unknown size
// that is not kept inline) a commit decided on a cached manifest
// revalidates it while it uploads.
const largeUpload = 8 << 20

// revalidate reads the domain's manifest again (a conditional GET that
// usually answers 304) beside the upload, and cancels the upload when it
// shows c fenced, so that a holder fenced since its cached manifest does
// not upload gigabytes before it learns it; the commit then decides on
// what was read (c.fresh). The read costs no time on the write path: it
// runs while the bytes are sent. The returned channel is closed when it
// is done.
func (c *commit) revalidate(ctx context.Context, cancel context.CancelCauseFunc) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		m, etag, err := c.s.loadManifest(ctx, c.domain)
		if err != nil || m == nil {
			return // the manifest write will find out
		}
		c.fresh, c.freshETag = m, etag
		if m.Highest > c.token {
			cancel(fmt.Errorf("objstore: commit %s to %q: the domain was fenced at token %d during the upload", c.id, c.domain, m.Highest))
		}
	}()
	return done
}

// versionKeys returns the version object key of every put of c, in
// order, built once for the upload or the inline entry. A backend that
// limits its keys (driver.KeyChecker) is asked whether it can store each,
// before any is uploaded; an inline value's too, as a later commit may
// spill it to that object.
func (c *commit) versionKeys() ([]string, error) {
	kc, check := c.s.b.(driver.KeyChecker)
	vks := make([]string, len(c.puts))
	for i, ch := range c.puts {
		if ch.staged != nil {
			vks[i] = ch.staged.Object // stored already
			continue
		}
		vks[i] = format.VersionKey(c.domain, ch.Key, c.token, c.attempt)
		if !check {
			continue
		}
		if err := kc.CheckKey(vks[i]); err != nil {
			return nil, fmt.Errorf("objstore: key %q in domain %q cannot be stored on %s: %w", ch.Key, c.domain, c.s.b.Location(), err)
		}
	}
	return vks, nil
}

// uploadOne writes ch to its version object vk.
func (c *commit) uploadOne(ctx context.Context, ch Change, vk string) (format.Entry, error) {
	s := c.s
	start := int64(-1)
	seeker, canRewind := ch.Body.(io.Seeker)
	if canRewind {
		var err error
		if start, err = seeker.Seek(0, io.SeekCurrent); err != nil {
			canRewind = false
		}
	}
	bo := new(backoff.Backoff)
	for {
		dg, err := c.putVersion(ctx, vk, ch)
		if err == nil {
			if ch.Size >= 0 && dg.Size != ch.Size {
				return format.Entry{}, fmt.Errorf("objstore: upload %q: body has %d bytes, declared size %d", ch.Key, dg.Size, ch.Size)
			}
			return entryOf(vk, dg, c.token), nil
		}
		if errors.Is(err, driver.ErrPreconditionFailed) {
			// The version exists. Its name is this attempt's alone, so it
			// is our own upload, answered 412 on a retry by the SDK or a
			// proxy after its first reply was lost. Accept it only if it
			// holds our bytes.
			if !dg.Known {
				return format.Entry{}, fmt.Errorf("objstore: upload %q to %q: %w (and the body was not read whole, so it cannot be compared with the stored version)", ch.Key, vk, err)
			}
			return c.checkOwnUpload(ctx, ch.Key, vk, dg)
		}
		if !transient(ctx, err) {
			return format.Entry{}, fmt.Errorf("objstore: upload %q to %q: %w", ch.Key, vk, err)
		}
		if !canRewind {
			return format.Entry{}, fmt.Errorf("objstore: upload %q to %q: %w (the body cannot be rewound for a retry; nothing was published)", ch.Key, vk, err)
		}
		s.opts.Logger.Debug("objstore: retrying version upload", "key", vk, "err", err)
		if werr := bo.Wait(ctx); werr != nil {
			return format.Entry{}, fmt.Errorf("objstore: upload %q to %q: %w (last error: %w)", ch.Key, vk, werr, err)
		}
		if _, serr := seeker.Seek(start, io.SeekStart); serr != nil {
			return format.Entry{}, fmt.Errorf("objstore: upload %q: rewind for retry: %w", ch.Key, serr)
		}
	}
}

// checkOwnUpload checks that an existing version object holds exactly the
// bytes dg describes, and returns its entry, with the CRCs of what was
// read back when dg has none.
func (c *commit) checkOwnUpload(ctx context.Context, key, vk string, dg driver.Digest) (format.Entry, error) {
	rc, _, err := c.s.b.Get(ctx, vk, driver.GetOptions{})
	if err != nil {
		return format.Entry{}, fmt.Errorf("objstore: upload %q: version %q exists but cannot be read back: %w", key, vk, err)
	}
	defer rc.Close()
	d := driver.NewDigester()
	if _, err := io.Copy(d, rc); err != nil {
		return format.Entry{}, fmt.Errorf("objstore: upload %q: read back %q: %w", key, vk, err)
	}
	got := d.Digest()
	if !digestMatches(got, entryOf(vk, dg, c.token)) {
		return format.Entry{}, fmt.Errorf("objstore: upload %q: version %q, whose name is this commit attempt's own, already exists with other bytes: the store answered 412 to a write it did not apply, or another writer used the same attempt id", key, vk)
	}
	return entryOf(vk, got, c.token), nil
}

// putVersion creates the version object vk with ch's body and returns the
// body's length, SHA-256 and CRCs: from the backend, when it hashes what
// it sends anyway (driver.HashingPutter), so the body is hashed once;
// otherwise by hashing it on its way to the backend. With
// driver.ErrPreconditionFailed the digest is that of the whole body, which
// is then read to its end if the backend stopped short.
func (c *commit) putVersion(ctx context.Context, vk string, ch Change) (driver.Digest, error) {
	opts := driver.PutOptions{Mode: driver.Create{}}
	if hp, ok := c.s.b.(driver.HashingPutter); ok {
		_, dg, err := hp.PutHashed(ctx, vk, ch.Body, ch.Size, opts)
		return dg, err
	}
	hr := &hashingReader{r: ch.Body, d: driver.NewDigester()}
	_, err := c.s.b.Put(ctx, vk, hr, ch.Size, opts)
	if err != nil && !errors.Is(err, driver.ErrPreconditionFailed) {
		return driver.Digest{}, err
	}
	if err != nil {
		if _, derr := io.Copy(io.Discard, hr); derr != nil {
			return driver.Digest{}, fmt.Errorf("%w (and reading the rest of the body failed: %v)", err, derr)
		}
	}
	return hr.d.Digest(), err
}

// hashingReader digests what passes through it.
type hashingReader struct {
	r io.Reader
	d *driver.Digester
}

func (h *hashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.d.Write(p[:n])
	return n, err
}
