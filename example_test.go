package fence_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// The pipeline a holder writes: open a store from its URL (here the
// embedded default, a local directory; s3://, minio:// and a dynamodb://
// coordinator work the same once the program imports their backends, as
// in _ "github.com/fencedstore/fence/objstore/s3store"), take the lease, stream a CSV through a
// Writer, commit several keys at once, read a range back, and stop when
// the session ends. docs/usage.md shows this code.
func Example_holder() {
	dir, err := os.MkdirTemp("", "fence-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// Lease records live in the same directory; Coord could name DynamoDB.
	o, err := config.Open(ctx, "file://"+dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer o.Close()

	// The session renews the lease every TTL/3 and ends before the lease
	// could lapse unnoticed; the holder's writes end with it.
	session, err := fence.Acquire(ctx, o.Store, o.Coordinator, "reports/monthly", &fence.AcquireOptions{
		Holder: "worker-1", TTL: 10 * time.Second, Wait: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Release(context.WithoutCancel(ctx))
	holder := fence.NewHolder(session, o.Store)

	// Stream a CSV: nothing is visible until Close commits it.
	w := holder.NewWriter(ctx, "2026-01/rows.csv")
	for i := range 1000 {
		fmt.Fprintf(w, "%d,%d\n", i, i*i)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	// One commit publishes both keys at once, or neither.
	_, err = holder.Commit(ctx, []objstore.Change{
		objstore.PutBytes("2026-01/summary.csv", []byte("rows,1000\n")),
		objstore.PutBytes("index.txt", []byte("2026-01\n")),
	}, nil)
	var fenced *objstore.FencedError
	switch {
	case errors.As(err, &fenced):
		log.Fatalf("a newer holder has token %d; stop", fenced.Highest)
	case errors.Is(err, fence.ErrStale): // the lease may be lost
		log.Fatal("no longer the holder; stop")
	case err != nil:
		log.Fatal(err)
	}

	// Read rows 500 to 502 back: a range of the CSV.
	rc, err := o.Store.NewRangeReader(ctx, "reports/monthly", "2026-01/rows.csv", 4927, 33)
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	part, err := io.ReadAll(rc)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("token %d; bytes 4927 to 4959:\n%s", holder.Token(), part)
	// Output:
	// token 1; bytes 4927 to 4959:
	// 500,250000
	// 501,251001
	// 502,252004
}

// openTemp opens a store and its lease records in a new directory.
func openTemp(opts *config.OpenOptions) (*config.Opened, func()) {
	dir, err := os.MkdirTemp("", "fence-example-")
	if err != nil {
		log.Fatal(err)
	}
	o, err := config.Open(context.Background(), "file://"+dir, opts)
	if err != nil {
		log.Fatal(err)
	}
	return o, func() { o.Close(); os.RemoveAll(dir) }
}

// A timeout on a waiting acquisition bounds the wait, not the job: the
// session it returns lives until Release (or the loss of the lease), so
// the job can run longer than the timeout.
func ExampleAcquire_waitWithTimeout() {
	o, done := openTemp(nil)
	defer done()
	ctx := context.Background()

	// Another holder has the lease for 300ms more, and stops renewing it.
	other, err := fence.Acquire(ctx, o.Store, o.Coordinator, "reports/monthly", &fence.AcquireOptions{Holder: "other", TTL: 300 * time.Millisecond})
	if err != nil {
		log.Fatal(err)
	}
	other.Orphan()

	// Wait at most ten seconds for the lease.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	sess, err := fence.Acquire(wctx, o.Store, o.Coordinator, "reports/monthly", &fence.AcquireOptions{Holder: "worker-1", Wait: true})
	if err != nil {
		log.Fatal(err) // the wait timed out, or the takeover failed
	}
	defer sess.Release(context.WithoutCancel(ctx))

	// The job runs past the end of the wait's context (cancelled here;
	// its timeout passing ends it the same way).
	cancel()
	time.Sleep(200 * time.Millisecond)
	h := fence.NewHolder(sess, o.Store)
	_, err = h.Put(ctx, "summary.csv", strings.NewReader("rows,1000\n"), -1)
	fmt.Printf("session live: %v; put: %v\n", sess.Err() == nil, err)
	// Output:
	// session live: true; put: <nil>
}

// stop says what a holder does after a write's error: the table in the
// package documentation, in code. Test the unknown outcome first: its
// commit may have landed.
func stop(err error) string {
	var (
		fenced  *objstore.FencedError
		unknown *objstore.UnknownOutcomeError
	)
	switch {
	case err == nil:
		return "written"
	case errors.As(err, &unknown):
		return "outcome unknown: retry with unknown.Retry()"
	case errors.As(err, &fenced):
		return fmt.Sprintf("fenced: token %d is below %d; stop", fenced.Token, fenced.Highest)
	case errors.Is(err, fence.ErrStale):
		return "the lease may be lost; nothing was written; stop"
	}
	return "failed: " + err.Error()
}

// A stale holder is told so whichever way it finds out: the store
// rejects its token (a *objstore.FencedError, naming both tokens), or
// its session ends because the lease may be lost (coord.ErrLeaseLost).
// Both match fence.ErrStale.
func Example_staleHolder() {
	o, done := openTemp(nil)
	defer done()
	ctx := context.Background()

	// Fenced: the holder's session is still live (it renews every 20
	// minutes), but an operator broke its lease and fenced the store.
	slow, err := fence.Acquire(ctx, o.Store, o.Coordinator, "a", &fence.AcquireOptions{Holder: "slow", TTL: time.Hour})
	if err != nil {
		log.Fatal(err)
	}
	defer slow.Orphan()
	if _, err := fence.Break(ctx, o.Store, o.Coordinator, "a", nil); err != nil {
		log.Fatal(err)
	}
	_, err = fence.NewHolder(slow, o.Store).Put(ctx, "k", strings.NewReader("late"), -1)
	fmt.Println(stop(err), errors.Is(err, fence.ErrStale))

	// Lease lost: the next renewal is refused, so the session ends and
	// the holder refuses to write.
	quick, err := fence.Acquire(ctx, o.Store, o.Coordinator, "b", &fence.AcquireOptions{Holder: "quick", TTL: 300 * time.Millisecond})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := fence.Break(ctx, o.Store, o.Coordinator, "b", nil); err != nil {
		log.Fatal(err)
	}
	<-quick.Done()
	_, err = fence.NewHolder(quick, o.Store).Put(ctx, "k", strings.NewReader("late"), -1)
	fmt.Println(stop(err), errors.Is(err, fence.ErrStale))
	// Output:
	// fenced: token 1 is below 2; stop true
	// the lease may be lost; nothing was written; stop true
}

// An unknown outcome, injected with faulty under the Store config.Open
// returns: the manifest write lands but its reply is lost, and no read
// back succeeds before the deadline. Retrying with Retry's options
// settles it: the commit is applied once.
func Example_unknownOutcome() {
	var fb *faulty.Backend
	o, done := openTemp(&config.OpenOptions{WrapBackend: faulty.Into(&fb)})
	defer done()
	ctx := context.Background()
	sess, err := fence.Acquire(ctx, o.Store, o.Coordinator, "reports", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Release(context.WithoutCancel(ctx))
	h := fence.NewHolder(sess, o.Store)

	fb.Add(faulty.Once(faulty.OpPut, faulty.Manifest("reports"), faulty.Fault{DropReply: true}),
		faulty.Always(faulty.OpGet, faulty.Manifest("reports"), faulty.Fault{Err: errors.New("unreachable")}))
	changes := []objstore.Change{objstore.PutBytes("total.txt", []byte("42\n"))}
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = h.Commit(cctx, changes, nil)
	cancel()
	fmt.Println(stop(err))

	fb.Clear() // the store is reachable again
	var unknown *objstore.UnknownOutcomeError
	if errors.As(err, &unknown) {
		_, err = h.Commit(ctx, changes, unknown.Retry())
	}
	fmt.Println(stop(err))
	data, _, err := o.Store.ReadAll(ctx, "reports", "total.txt")
	fmt.Printf("%q %v\n", data, err)
	// Output:
	// outcome unknown: retry with unknown.Retry()
	// written
	// "42\n" <nil>
}
