package fence

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/observe"
)

// Holder writes to a store as the holder of a session's lease: every
// write carries the lease's domain and token, so they cannot be mixed up,
// and every write runs under the session, so it stops when the session
// ends. A Holder is safe for concurrent use.
//
// Errors (the package documentation has the table): a write rejected
// because a newer holder took over is a *objstore.FencedError, as with
// the Store. A write refused because the session had ended matches the
// session's cause, coord.ErrLeaseLost when the lease may be lost,
// coord.ErrReleased after Release, and nothing of it was written; its
// message names the domain, the token and then the cause, the same from
// run to run, for Commit, Put, Delete and a HolderWriter alike. Both a
// fenced write and a lost lease match ErrStale. An error that matches
// objstore.ErrOutcomeUnknown still does, and its commit may have landed
// (fencing keeps it safe either way: a landed commit was accepted at a
// token the store still held): test it first.
type Holder struct {
	sess  *coord.Session
	store *objstore.Store
}

// NewHolder returns a Holder writing to store with sess's lease.
func NewHolder(sess *coord.Session, store *objstore.Store) *Holder {
	return &Holder{sess: sess, store: store}
}

// Session returns the holder's session.
func (h *Holder) Session() *coord.Session { return h.sess }

// Store returns the store the holder writes to.
func (h *Holder) Store() *objstore.Store { return h.store }

// Domain returns the lease's domain.
func (h *Holder) Domain() string { return h.sess.Lease().Domain }

// Token returns the lease's fencing token.
func (h *Holder) Token() uint64 { return h.sess.Lease().Token }

// Commit commits changes in the lease's domain with its token, as one
// fenced commit (objstore.Store.Commit).
func (h *Holder) Commit(ctx context.Context, changes []objstore.Change, opts *objstore.CommitOptions) (objstore.CommitResult, error) {
	l := h.sess.Lease()
	if cause := h.sess.Err(); cause != nil {
		return objstore.CommitResult{}, h.ended("commit", cause)
	}
	ctx, _, stop := h.bind(ctx)
	defer stop()
	c, err := h.store.Commit(ctx, l.Domain, l.Token, changes, opts)
	return c, h.explain("commit", err)
}

// Put commits one key. size is body's exact length, or -1 when unknown.
func (h *Holder) Put(ctx context.Context, key string, body io.Reader, size int64) (objstore.CommitResult, error) {
	return h.Commit(ctx, []objstore.Change{objstore.PutReader(key, body, size)}, nil)
}

// Delete commits the removal of key.
func (h *Holder) Delete(ctx context.Context, key string) (objstore.CommitResult, error) {
	return h.Commit(ctx, []objstore.Change{objstore.DeleteKey(key)}, nil)
}

// NewWriter returns a Writer that commits key with the lease when it is
// closed (objstore.Store.NewWriter). It is abandoned, and publishes
// nothing, when ctx or the session ends before Close; Close's error then
// matches the session's cause.
func (h *Holder) NewWriter(ctx context.Context, key string) *HolderWriter {
	l := h.sess.Lease()
	ctx, cancel, stop := h.bind(ctx)
	return &HolderWriter{Writer: h.store.NewWriter(ctx, l.Domain, key, l.Token), h: h, key: key, cancel: cancel, stop: stop}
}

// HolderWriter is an objstore.Writer whose errors say when the session
// ended.
type HolderWriter struct {
	*objstore.Writer
	h      *Holder
	key    string
	cancel context.CancelCauseFunc
	stop   func()
}

// Write is objstore.Writer.Write.
func (w *HolderWriter) Write(p []byte) (int, error) {
	if cause := w.h.sess.Err(); cause != nil {
		// The session ended; the AfterFunc that abandons the writer
		// may not have run yet.
		w.cancel(cause)
		return 0, w.h.ended(fmt.Sprintf("write of %q", w.key), cause)
	}
	n, err := w.Writer.Write(p)
	return n, w.fail(err)
}

// Close is objstore.Writer.Close.
func (w *HolderWriter) Close() error {
	if cause := w.h.sess.Err(); cause != nil {
		// The session ended; the AfterFunc that ends the writer's
		// context may not have run yet.
		w.cancel(cause)
	}
	err := w.Writer.Close()
	w.stop()
	return w.fail(err)
}

// fail explains err: a Writer abandoned because the session ended fails
// as a Holder's write does once the session has ended.
func (w *HolderWriter) fail(err error) error {
	if err == nil {
		return nil
	}
	if cause := w.h.sess.Err(); cause != nil && errors.Is(err, cause) {
		return w.h.ended(fmt.Sprintf("write of %q", w.key), cause)
	}
	return w.h.explain(fmt.Sprintf("write of %q", w.key), err)
}

// bind returns a context that ends when ctx or the session does (and
// carries the session's deadline, for observe.Commit.LeaseRemaining), its
// cancel function, and a function that releases it.
func (h *Holder) bind(ctx context.Context) (context.Context, context.CancelCauseFunc, func()) {
	ctx, cancel := context.WithCancelCause(observe.WithLeaseDeadline(ctx, h.sess.Deadline()))
	stop := context.AfterFunc(h.sess.Ctx(), func() { cancel(h.sess.Err()) })
	return ctx, cancel, func() { stop(); cancel(nil) }
}

// ended is the error of a write refused, or abandoned before anything was
// published, because the session had ended with cause.
func (h *Holder) ended(op string, cause error) error {
	l := h.sess.Lease()
	return fmt.Errorf("fence: %s in %q with token %d: the session has ended, nothing was written: %w", op, l.Domain, l.Token, cause)
}

// explain puts the session's end, when the session has ended, before
// err: the session may have ended while the write ran.
func (h *Holder) explain(op string, err error) error {
	if err == nil {
		return nil
	}
	cause := h.sess.Err()
	if cause == nil {
		return err
	}
	l := h.sess.Lease()
	return fmt.Errorf("fence: %s in %q with token %d: the session ended while it ran (%w): %w", op, l.Domain, l.Token, cause, err)
}
