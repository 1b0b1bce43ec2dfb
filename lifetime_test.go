package fence_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/config"
)

// Issue 23, item 1, scaled down: on file://, a holder waits for a busy
// lease under a context with a timeout, wins the lease before the
// timeout, and then works past it. The timeout bounds the wait only: the
// session (TTL 10s) and the holder's writes go on after it.
func TestWaitDeadlineDoesNotEndSession(t *testing.T) {
	ctx := t.Context()
	o, err := config.Open(ctx, "file://"+t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	const domain = "reports/monthly"
	// A holds the lease for one more second and stops renewing it.
	a, err := fence.Acquire(ctx, o.Store, o.Coordinator, domain, &fence.AcquireOptions{Holder: "A", TTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a.Orphan()

	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	sess, err := fence.Acquire(wctx, o.Store, o.Coordinator, domain, &fence.AcquireOptions{Holder: "B", TTL: 10 * time.Second, Wait: true})
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	defer sess.Release(context.Background())
	// The job runs past the end of the wait's context: cancelled here,
	// as its deadline passing would end it (a deadline of its own would
	// have to leave a loaded machine time to wait out A's lease).
	cancel()
	time.Sleep(300 * time.Millisecond)
	if err := sess.Err(); err != nil {
		t.Fatalf("the session ended with the wait's deadline: %v", err)
	}
	h := fence.NewHolder(sess, o.Store)
	if _, err := h.Put(ctx, "summary.csv", strings.NewReader("rows,3\n"), -1); err != nil {
		t.Fatalf("put after the wait's deadline: %v", err)
	}
}

// AcquireOptions.Lifetime ends the session when it ends, with its cause.
func TestLifetimeEndsSession(t *testing.T) {
	ctx := t.Context()
	o, err := config.Open(ctx, "file://"+t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	life, end := context.WithCancelCause(context.Background())
	sess, err := fence.Acquire(ctx, o.Store, o.Coordinator, "d", &fence.AcquireOptions{Lifetime: life})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Release(context.Background())
	if sess.Err() != nil {
		t.Fatalf("session ended at once: %v", sess.Err())
	}
	stop := errors.New("test: shutting down")
	end(stop)
	select {
	case <-sess.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the session outlived its Lifetime")
	}
	if !errors.Is(sess.Err(), stop) {
		t.Fatalf("session ended with %v, want the Lifetime's cause", sess.Err())
	}
}
