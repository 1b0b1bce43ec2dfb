package fence_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// Break ends a live holder's lease and fences the store: the old holder's
// commit with its token is rejected, its session ends with ErrLeaseLost,
// and a new holder acquires at once, without waiting for any expiry.
func TestBreakFencesTheOldHolder(t *testing.T) {
	ctx := t.Context()
	b := memstore.New()
	store := objstore.New(b, nil)
	c := coord.New(bucketlease.New(b, nil))
	sess, err := fence.Acquire(ctx, store, c, "d", &fence.AcquireOptions{Holder: "A", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Release(context.WithoutCancel(ctx))
	old := sess.Lease()
	if _, err := fence.NewHolder(sess, store).Put(ctx, "k", strings.NewReader("A's"), -1); err != nil {
		t.Fatal(err)
	}

	res, err := fence.Break(ctx, store, c, "d", &fence.BreakOptions{Holder: "operator"})
	if err != nil {
		t.Fatalf("Break: %v", err)
	}
	if res.Domain != "d" || res.Old.Holder != "A" || res.Old.Token != old.Token || res.Token <= old.Token {
		t.Fatalf("Break = %+v; want old holder A with token %d and a higher token", res, old.Token)
	}
	if h, err := store.Highest(ctx, "d"); err != nil || h != res.Token {
		t.Fatalf("store highest after Break = %d, %v; want the break's token %d", h, err, res.Token)
	}

	recs, err := store.History(ctx, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	if last := recs[len(recs)-1]; !last.Fence || last.Token != res.Token || last.Holder != "operator" {
		t.Fatalf("last commit after Break = %+v; want the breaker's fence at token %d", last, res.Token)
	}

	// The old holder's late commit, straight to the store with its token.
	_, err = store.Put(ctx, "d", "k", old.Token, strings.NewReader("A's late write"), -1)
	var fe *objstore.FencedError
	if !errors.As(err, &fe) || fe.Token != old.Token || fe.Highest != res.Token {
		t.Fatalf("old holder's commit after Break: %v; want fenced at token %d by %d", err, old.Token, res.Token)
	}

	// Its lease is lost at the coordinator.
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := c.Renew(sctx, old, time.Hour); !errors.Is(err, coord.ErrLeaseLost) {
		t.Fatalf("old holder's Renew after Break: %v; want ErrLeaseLost", err)
	}

	// The domain is free: a new holder gets it without waiting.
	next, err := fence.Acquire(ctx, store, c, "d", &fence.AcquireOptions{Holder: "B"})
	if err != nil {
		t.Fatalf("Acquire right after Break: %v", err)
	}
	defer next.Release(context.WithoutCancel(ctx))
	if next.Lease().Token <= res.Token {
		t.Fatalf("token after Break %d; want above %d", next.Lease().Token, res.Token)
	}
	if rc, err := store.Get(ctx, "d", "k"); err != nil {
		t.Fatal(err)
	} else {
		rc.Close()
		if rc.Version.Token != old.Token {
			t.Fatalf("key k is at token %d; want A's committed write (token %d) still there", rc.Version.Token, old.Token)
		}
	}
}

// A session whose lease was broken ends with ErrLeaseLost.
func TestBreakEndsTheOldSession(t *testing.T) {
	ctx := t.Context()
	b := memstore.New()
	store := objstore.New(b, nil)
	c := coord.New(bucketlease.New(b, nil))
	sess, err := fence.Acquire(ctx, store, c, "d", &fence.AcquireOptions{Holder: "A", TTL: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fence.Break(ctx, store, c, "d", nil); err != nil {
		t.Fatalf("Break: %v", err)
	}
	select {
	case <-sess.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the broken holder's session is still live 10s later")
	}
	if !errors.Is(sess.Err(), coord.ErrLeaseLost) {
		t.Fatalf("session Err after Break = %v; want ErrLeaseLost", sess.Err())
	}
	if _, err := fence.NewHolder(sess, store).Put(ctx, "k", strings.NewReader("late"), -1); !errors.Is(err, coord.ErrLeaseLost) {
		t.Fatalf("Put through the broken session: %v; want ErrLeaseLost", err)
	}
}

// Break of a domain nobody holds (or never acquired) fences it all the
// same and leaves it free.
func TestBreakFreeDomain(t *testing.T) {
	ctx := t.Context()
	b := memstore.New()
	store := objstore.New(b, nil)
	c := coord.New(bucketlease.New(b, nil))
	res, err := fence.Break(ctx, store, c, "never", nil)
	if err != nil || res.Old.Token != 0 || res.Old.Holder != "" || res.Token != 1 {
		t.Fatalf("Break of a domain never acquired = %+v, %v; want old token 0, new token 1", res, err)
	}
	st, err := c.State(ctx, "never")
	if err != nil || st.Holder != "" || st.Token != 1 {
		t.Fatalf("State after Break = %+v, %v; want released at token 1", st, err)
	}
}
