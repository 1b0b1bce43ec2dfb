package objstore

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// Writer streams one key's bytes into a commit that is made on Close,
// like gocloud's blob.Writer: nothing is visible until Close returns nil,
// and nothing ever becomes visible if Close is not reached or ctx ends
// first. The bytes go to the backend as they are written (a part at a
// time for S3 stores), so a Writer holds no more than a Put of unknown
// size does. A Writer is not safe for concurrent use.
type Writer struct {
	ctx    context.Context
	pw     *io.PipeWriter
	done   chan struct{}
	stop   func() bool
	once   sync.Once
	result CommitResult
	err    error
	// abandon fails the body with ctx's cause.
	abandon func()
}

// NewWriter returns a Writer that commits key in domain with token when it
// is closed (Store.Put with a body of unknown size). Cancel ctx to abandon
// the write: Close then fails and nothing is published.
func (s *Store) NewWriter(ctx context.Context, domain, key string, token uint64) *Writer {
	pr, pw := io.Pipe()
	w := &Writer{ctx: ctx, pw: pw, done: make(chan struct{})}
	// A context that ends before Close fails the body, so the upload
	// fails and the commit is never published.
	abandon := func() {
		pw.CloseWithError(fmt.Errorf("objstore: writer for %q in domain %q abandoned: %w", key, domain, context.Cause(ctx)))
	}
	w.stop = context.AfterFunc(ctx, abandon)
	w.abandon = abandon
	go func() {
		defer close(w.done)
		w.result, w.err = s.Put(ctx, domain, key, token, pr, -1)
		// Writes after a failure fail with its error (after a success,
		// with io.ErrClosedPipe), rather than block.
		pr.CloseWithError(w.err)
	}()
	return w
}

// Write writes p to the key's new version. It fails once the commit has
// failed (or the context ended), with that error.
func (w *Writer) Write(p []byte) (int, error) { return w.pw.Write(p) }

// Close ends the bytes and makes the commit, and returns its error: nil
// only if the commit landed. It waits for the commit, and calling it
// again returns the same result.
func (w *Writer) Close() error {
	w.once.Do(func() {
		if w.ctx.Err() != nil {
			// The context ended, and its AfterFunc may not have run
			// yet: the body must fail, not end.
			w.abandon()
		}
		w.pw.Close()
		<-w.done
		w.stop()
	})
	return w.err
}

// Result describes the commit Close made; the zero CommitResult before
// Close or when it failed.
func (w *Writer) Result() CommitResult {
	select {
	case <-w.done:
		return w.result
	default:
		return CommitResult{}
	}
}
