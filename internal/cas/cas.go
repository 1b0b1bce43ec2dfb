// Package cas is fence's one conditional update of an object: read it,
// decide, write it back with If-Match on the ETag that was read (or
// If-None-Match when there was none), and on failure read again and
// decide again. The domain manifest (objstore) and the bucket-lease
// record (coord/bucketlease) are both changed only through Run.
//
// Every failed write may have landed: a timeout or a 5xx says nothing,
// and a 412 or a 409 may be the answer to a retry, by the SDK or a proxy,
// of a write that landed before its reply was lost. So Run tells the
// caller about each failed write (Updater.Failed) and decides nothing
// itself: the caller's next Decide, on the state read back, settles it
// (its own write is recognisable there by an id it wrote), and any error
// that ends the update after such a write goes through Updater.Stop,
// which says that the outcome is unknown.
package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/fencedstore/fence/internal/backoff"
	"github.com/fencedstore/fence/objstore/driver"
)

// Updater is what one conditional update does with the object's state S.
type Updater[S any] interface {
	// Read returns the object's current state and ETag ("" when there is
	// no object).
	Read(ctx context.Context) (cur S, etag string, err error)
	// Decide judges cur: it returns what to write on top of it, or done
	// with the update's end (err nil: the update is over, for example
	// because a write that failed is seen to have landed).
	Decide(ctx context.Context, cur S) (w Write, done bool, err error)
	// Wrote is told that the last write Decide returned
	// landed, with its new ETag.
	Wrote(ctx context.Context, etag string)
	// Failed is told that the write based on cur failed with err, and
	// may have landed.
	Failed(cur S, err error)
	// Stop returns the error that ends the update with err: a failed
	// read or write, or the backoff's end (after a failed write, which
	// Failed was told). It says whether an earlier write may have landed.
	Stop(err error) error
}

// Write is what one attempt writes: a fresh Body each time Decide is
// called (Run closes it if it is an io.Closer), its exact Size (-1 when
// unknown), and the object's metadata.
type Write struct {
	Body     io.Reader
	Size     int64
	Metadata map[string]string
	// BodyErr, if set, returns the error Body's own Read gave (a source
	// whose bytes failed their check), or nil. A write that failed
	// while it did ends the update: the same bytes cannot do better.
	BodyErr func() error
}

// Bytes returns a Write of data.
func Bytes(data []byte) Write { return Write{Body: bytes.NewReader(data), Size: int64(len(data))} }

// Update names the object and tunes Run.
type Update struct {
	Key         string
	ContentType string
	// Logger receives each failed write (debug for a lost race, warn for
	// an ambiguous error) with LogAttrs. nil discards.
	Logger   *slog.Logger
	LogAttrs []any
}

// Run performs one conditional update with u, starting from the state
// cur with ETag etag that the caller has read (or that its cache holds:
// a stale one costs one 412). It returns the error of the Decide, Stop
// or a write that ended it, or nil.
//
// A 412 (another writer was first) reads again at once; a 409 (a
// concurrent write in progress) and any other error back off first
// (internal/backoff, which ends with ctx or its limit). ErrNotFound from
// a write means the bucket is missing, and driver.ErrPermanent a refusal
// (access denied, a full disk): nothing landed, and the update ends.
func Run[S any](ctx context.Context, b driver.Backend, up Update, u Updater[S], cur S, etag string) error {
	log := up.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var bo backoff.Backoff
	for {
		w, done, err := u.Decide(ctx, cur)
		if done || err != nil {
			return err
		}
		opts := driver.PutOptions{Mode: driver.Update{ETag: etag}, ContentType: up.ContentType, Metadata: w.Metadata}
		if etag == "" {
			opts.Mode = driver.Create{}
		}
		info, err := b.Put(ctx, up.Key, w.Body, w.Size, opts)
		if c, ok := w.Body.(io.Closer); ok {
			c.Close()
		}
		if err == nil {
			u.Wrote(ctx, info.ETag)
			return nil
		}
		if w.BodyErr != nil {
			if berr := w.BodyErr(); berr != nil {
				// The source failed, not the store: nothing to distrust,
				// and nothing to retry.
				u.Failed(cur, err)
				return u.Stop(fmt.Errorf("write %q: reading what to write: %w", up.Key, berr))
			}
		}
		if errors.Is(err, driver.ErrNotFound) || errors.Is(err, driver.ErrPermanent) {
			// A missing bucket, or a refusal (access denied, a full
			// disk): nothing landed, and asking again changes nothing.
			return u.Stop(fmt.Errorf("write %q: %w", up.Key, err))
		}
		u.Failed(cur, err)
		switch {
		case errors.Is(err, driver.ErrPreconditionFailed):
			log.Debug("conditional write lost a race, re-reading", append(up.LogAttrs, "key", up.Key)...)
		case errors.Is(err, driver.ErrConflict):
			log.Debug("conditional write conflict, backing off", append(up.LogAttrs, "key", up.Key)...)
			if werr := bo.Wait(ctx); werr != nil {
				return u.Stop(fmt.Errorf("%w; the last write of %q: %w", werr, up.Key, err))
			}
		default:
			// An answer the capability probe did not see the store
			// give: a process that trusts a cached verdict probes again.
			driver.Distrust(b)
			log.Warn("conditional write outcome ambiguous, reading back", append(up.LogAttrs, "key", up.Key, "err", err)...)
			if werr := bo.Wait(ctx); werr != nil {
				return u.Stop(fmt.Errorf("%w; the last write of %q: %w", werr, up.Key, err))
			}
		}
		if cur, etag, err = u.Read(ctx); err != nil {
			return u.Stop(err)
		}
	}
}
