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
//
// A Writer abandoned because ctx ended before Close fails every later
// Write, and Close, with the same error, which names the key and then
// ctx's cause (context.Cause), whatever the upload was doing: errors.Is
// sees the cause (coord.ErrLeaseLost for a Holder's writer whose session
// ended).
type Writer struct {
	ctx         context.Context
	domain, key string
	pw          *io.PipeWriter
	done        chan struct{}
	stop        func() bool
	once        sync.Once
	result      CommitResult
	err         error

	mu        sync.Mutex
	closing   bool  // Close has ended the body: abandoning is too late
	abandoned error // why the body was failed, or nil
}

// NewWriter returns a Writer that commits key in domain with token when it
// is closed (Store.Put with a body of unknown size). Cancel ctx to abandon
// the write: Close then fails and nothing is published.
func (s *Store) NewWriter(ctx context.Context, domain, key string, token uint64) *Writer {
	pr, pw := io.Pipe()
	w := &Writer{ctx: ctx, domain: domain, key: key, pw: pw, done: make(chan struct{})}
	// A context that ends before Close fails the body, so the upload
	// fails and the commit is never published.
	w.stop = context.AfterFunc(ctx, w.abandon)
	go func() {
		defer close(w.done)
		w.result, w.err = s.Put(ctx, domain, key, token, pr, -1)
		// Writes after a failure fail with its error (after a success,
		// with io.ErrClosedPipe), rather than block.
		pr.CloseWithError(w.err)
	}()
	return w
}

// abandon fails the body with ctx's cause, unless Close has ended it.
func (w *Writer) abandon() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closing || w.abandoned != nil {
		return
	}
	w.abandoned = fmt.Errorf("objstore: write of %q in domain %q abandoned before Close, nothing was published: %w", w.key, w.domain, context.Cause(w.ctx))
	w.pw.CloseWithError(w.abandoned)
}

// why returns the abandonment's error, or nil.
func (w *Writer) why() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.abandoned
}

// Write writes p to the key's new version. It fails once the commit has
// failed or the Writer was abandoned, with that error.
func (w *Writer) Write(p []byte) (int, error) {
	n, err := w.pw.Write(p)
	if err != nil {
		if a := w.why(); a != nil {
			return n, a
		}
	}
	return n, err
}

// Close ends the bytes and makes the commit, and returns its error: nil
// only if the commit landed. It waits for the commit, and calling it
// again returns the same result.
func (w *Writer) Close() error {
	w.once.Do(func() {
		w.mu.Lock()
		if w.ctx.Err() == nil {
			w.closing = true
		}
		w.mu.Unlock()
		if !w.closing {
			// The context ended, and its AfterFunc may not have run
			// yet: the body must fail, not end.
			w.abandon()
		}
		w.pw.Close()
		<-w.done
		w.stop()
		if a := w.why(); a != nil {
			// The body failed, so nothing was published, whatever
			// the upload reported on its way out.
			w.err = a
		}
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
