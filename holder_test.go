package fence_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// refusesRenewal is a driver that another holder has taken the lease
// from, as far as renewals can tell.
type refusesRenewal struct{ coord.Driver }

func (refusesRenewal) Renew(_ context.Context, l coord.Lease, _ time.Duration) (coord.Lease, error) {
	return coord.Lease{}, fmt.Errorf("test: renew %q: %w", l.Domain, coord.ErrLeaseLost)
}

func newHolder(t *testing.T, c *coord.Coordinator, store *objstore.Store) *fence.Holder {
	t.Helper()
	sess, err := fence.Acquire(t.Context(), store, c, "d", &fence.AcquireOptions{Holder: "A", TTL: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Release(context.Background()) })
	return fence.NewHolder(sess, store)
}

// A Holder's writes carry its lease's domain and token; after a newer
// holder's takeover they are fenced, as the Store's are.
func TestHolderWritesWithItsLease(t *testing.T) {
	ctx := t.Context()
	mem := memstore.New()
	store := objstore.New(mem, nil)
	leases := coord.New(bucketlease.New(mem, nil))
	h := newHolder(t, leases, store)
	if h.Domain() != "d" || h.Token() != 1 {
		t.Fatalf("holder of %q token %d", h.Domain(), h.Token())
	}
	c, err := h.Put(ctx, "k", strings.NewReader("A"), 1)
	if err != nil || c.Token != 1 || c.Domain != "d" {
		t.Fatalf("put: %+v, %v", c, err)
	}
	if _, err := h.Delete(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	// B takes over once A's lease has expired (A's session is orphaned so
	// that it stops renewing).
	h.Session().Orphan()
	time.Sleep(350 * time.Millisecond)
	sb, err := fence.Acquire(ctx, store, leases, "d", &fence.AcquireOptions{Holder: "B"})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Release(ctx)
	hb := fence.NewHolder(sb, store)
	if _, err := hb.Put(ctx, "k", strings.NewReader("B"), 1); err != nil {
		t.Fatal(err)
	}
	if got, _, err := store.ReadAll(ctx, "d", "k"); err != nil || string(got) != "B" {
		t.Fatalf("read %q, %v", got, err)
	}
}

// After the session ends, a Holder's write fails with the session's
// cause and writes nothing.
func TestHolderStopsWhenTheSessionEnds(t *testing.T) {
	ctx := t.Context()
	mem := faulty.New(memstore.New())
	store := objstore.New(mem, nil)
	h := newHolder(t, coord.New(refusesRenewal{bucketlease.New(mem, nil)}), store)
	select {
	case <-h.Session().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end when its renewal was refused")
	}
	before := mem.Calls(faulty.OpPut)
	_, err := h.Put(ctx, "k", strings.NewReader("late"), 4)
	if !errors.Is(err, coord.ErrLeaseLost) {
		t.Fatalf("put after the lease was lost: %v, want ErrLeaseLost", err)
	}
	if n := mem.Calls(faulty.OpPut) - before; n != 0 {
		t.Fatalf("put after the lease was lost made %d writes", n)
	}

	h = newHolder(t, coord.New(bucketlease.New(memstore.New(), nil)), objstore.New(memstore.New(), nil))
	if err := h.Session().Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Put(ctx, "k", strings.NewReader("x"), 1); !errors.Is(err, coord.ErrReleased) {
		t.Fatalf("put after Release: %v, want ErrReleased", err)
	}
}

// A session that ends while a commit is under way ends the commit: its
// error matches ErrLeaseLost.
func TestHolderCommitEndsWithTheSession(t *testing.T) {
	ctx := t.Context()
	mem := faulty.New(memstore.New())
	store := objstore.New(mem, &objstore.Options{InlineMax: -1}) // so that the value is uploaded
	h := newHolder(t, coord.New(refusesRenewal{bucketlease.New(mem, nil)}), store)
	if _, err := h.Put(ctx, "warm", strings.NewReader("x"), 1); err != nil {
		t.Fatal(err)
	}
	// The version upload waits until its context ends: it must end with
	// the session.
	mem.Add(faulty.Rule{
		Op:    faulty.OpPut,
		Match: func(c faulty.Call) bool { return strings.Contains(c.Key, "/_fence/v/") },
		Every: true,
		Func:  func(ctx context.Context, _ faulty.Call) faulty.Fault { return faulty.Fault{Pause: ctx.Done()} },
	})
	_, err := h.Put(ctx, "k", strings.NewReader("slow"), 4)
	if !errors.Is(err, coord.ErrLeaseLost) {
		t.Fatalf("commit during which the session ended: %v, want ErrLeaseLost", err)
	}
	if _, _, err := store.ReadAll(ctx, "d", "k"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("the cut-short commit is visible: %v", err)
	}
}

// A Holder's Writer commits with the lease on Close, and one whose session
// ends first publishes nothing and says why.
func TestHolderWriter(t *testing.T) {
	ctx := t.Context()
	mem := memstore.New()
	store := objstore.New(mem, nil)
	h := newHolder(t, coord.New(bucketlease.New(mem, nil)), store)
	w := h.NewWriter(ctx, "report.csv")
	fmt.Fprintln(w, "a,b")
	if err := w.Close(); err != nil || w.Result().Token != h.Token() {
		t.Fatalf("Close: %v, commit %+v", err, w.Result())
	}
	h = newHolder(t, coord.New(refusesRenewal{bucketlease.New(mem, nil)}), store)
	w = h.NewWriter(ctx, "late.csv")
	fmt.Fprintln(w, "c,d")
	<-h.Session().Done()
	if err := w.Close(); !errors.Is(err, coord.ErrLeaseLost) {
		t.Fatalf("Close after the session ended: %v, want ErrLeaseLost", err)
	}
	if _, _, err := store.ReadAll(ctx, "d", "late.csv"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("abandoned writer's key: %v", err)
	}
}

// A Holder is safe for concurrent use, and its goroutines' commits do not
// trip over each other: 64 goroutines of one Holder make 2,048 puts to its
// domain, each succeeds (none ends with an unknown outcome because a
// neighbour moved the commit log on), and each reads back (the Store
// merges the commits waiting for the manifest into shared writes:
// docs/design.md, "Concurrent commits in one domain").
func TestHolderManyGoroutines(t *testing.T) {
	ctx := t.Context()
	mem := memstore.New()
	store := objstore.New(mem, nil)
	sess, err := fence.Acquire(ctx, store, coord.New(bucketlease.New(mem, nil)), "d", &fence.AcquireOptions{Holder: "A"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Release(context.Background())
	h := fence.NewHolder(sess, store)
	const goroutines, each = 64, 32
	errs := make(chan error, goroutines)
	for g := range goroutines {
		go func() {
			for i := range each {
				v := fmt.Sprintf("g%d-%d", g, i)
				if _, err := h.Put(ctx, v, strings.NewReader(v), int64(len(v))); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range goroutines {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	reader := objstore.New(mem, nil)
	for g := range goroutines {
		for i := range each {
			v := fmt.Sprintf("g%d-%d", g, i)
			got, _, err := reader.ReadAll(ctx, "d", v)
			if err != nil || string(got) != v {
				t.Fatalf("read %s: %q, %v", v, got, err)
			}
		}
	}
}
