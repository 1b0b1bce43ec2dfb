package fence_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/coordtest"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/rules"
)

// A coordinator whose records were wiped still issues a token above the
// store's highest, and the takeover fences the old holder at once.
func TestAcquireResumesAboveStoreAndFences(t *testing.T) {
	ctx := context.Background()
	store := objstore.New(memstore.New(), nil)
	if _, err := store.Put(ctx, "d", "k", 41, strings.NewReader("A"), 1); err != nil {
		t.Fatal(err)
	}
	wiped := coord.New(bucketlease.New(memstore.New(), nil)) // knows nothing of token 41
	sess, err := fence.Acquire(ctx, store, wiped, "d", &fence.AcquireOptions{Holder: "B"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Release(ctx)
	l := sess.Lease()
	if l.Token != 42 {
		t.Fatalf("token %d, want 42 (the store's highest + 1)", l.Token)
	}
	if h, _ := store.Highest(ctx, "d"); h != 42 {
		t.Fatalf("store highest %d after takeover, want 42", h)
	}
	if _, err := store.Put(ctx, "d", "k", 41, strings.NewReader("late A"), -1); !errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("old holder after takeover: %v, want fenced", err)
	}
}

func TestAcquireNoFence(t *testing.T) {
	ctx := context.Background()
	store := objstore.New(memstore.New(), nil)
	store.Put(ctx, "d", "k", 5, strings.NewReader("A"), 1)
	sess, err := fence.Acquire(ctx, store, coord.New(bucketlease.New(memstore.New(), nil)), "d", &fence.AcquireOptions{NoFence: true})
	if err != nil || sess.Lease().Token != 6 {
		t.Fatalf("session %+v, %v", sess, err)
	}
	defer sess.Release(ctx)
	if h, _ := store.Highest(ctx, "d"); h != 5 {
		t.Fatalf("NoFence raised the store to %d", h)
	}
}

// When the store cannot be fenced, the lease is given back.
func TestAcquireReleasesWhenFencingFails(t *testing.T) {
	ctx := context.Background()
	mem := faulty.New(memstore.New())
	store := objstore.New(mem, nil)
	c := coord.New(bucketlease.New(memstore.New(), nil))
	store.Put(ctx, "d", "k", 1, strings.NewReader("A"), 1)
	mem.Add(faulty.Always(faulty.OpPut, format.ManifestKey("d"), faulty.Fault{Err: &faulty.HTTPError{Status: 503, Code: "SlowDown"}}))
	tctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	_, err := fence.Acquire(tctx, store, c, "d", &fence.AcquireOptions{Holder: "C"})
	if !errors.Is(err, objstore.ErrOutcomeUnknown) {
		t.Fatalf("acquire while the store refuses the fence: %v, want the fence's unknown outcome", err)
	}
	st, err := c.State(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	if st.Token == 0 {
		t.Fatal("the lease was never acquired; the test proves nothing")
	}
	if st.Held(time.Now()) {
		t.Fatalf("lease kept after fencing failed: %+v", st)
	}
}

// A store that ignores conditional writes is refused before the lease
// record (kept in the same bucket) is written.
func TestAcquireRefusesUnsafeStoreBeforeWriting(t *testing.T) {
	mem := memstore.New()
	unsafe := drivertest.IgnoreConditions(mem)
	store := objstore.New(unsafe, nil)
	_, err := fence.Acquire(context.Background(), store, coord.New(bucketlease.New(unsafe, nil)), "d", nil)
	if !errors.Is(err, objstore.ErrUnsafeStore) {
		t.Fatalf("err = %v, want ErrUnsafeStore", err)
	}
	if keys := mem.Keys(); len(keys) != 0 {
		t.Fatalf("refused store was written to: %v", keys)
	}
}

// The lease record is wiped between A's acquisition and A's fence, after
// A has read the store's floor, so B acquires from the same floor and
// gets A's token. Only one of them may get in: B fences first, so A's
// fence is refused as claimed and A's lease given back.
func TestAcquireWipedMidTakeover(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	fb := faulty.New(mem)
	store := objstore.New(fb, nil)
	if _, err := store.Put(ctx, "d", "k", 5, strings.NewReader("old"), -1); err != nil {
		t.Fatal(err)
	}
	leases := coord.New(bucketlease.New(mem, nil))
	// Bring the coordinator up to the store: token 6, released.
	setup, err := fence.Acquire(ctx, objstore.New(mem, nil), leases, "d", &fence.AcquireOptions{Holder: "setup"})
	if err != nil {
		t.Fatal(err)
	}
	if err := setup.Release(ctx); err != nil {
		t.Fatal(err)
	}
	// A's floor read, which runs while A acquires, is done before the
	// wipe.
	floorRead := make(chan struct{})
	var once sync.Once
	fb.Add(faulty.Rule{Op: faulty.OpGet, Key: format.ManifestKey("d"), Every: true, Fault: faulty.Fault{Then: func() { once.Do(func() { close(floorRead) }) }}})
	var lb coord.Lease
	wipe := coordtest.WipeAfterAcquire(leases.Driver(), func() error {
		<-floorRead
		return mem.Delete(ctx, rules.SystemKey("d", bucketlease.RecordName))
	}, func() {
		sb, err := fence.Acquire(ctx, objstore.New(mem, nil), leases, "d", &fence.AcquireOptions{Holder: "B"})
		if err != nil {
			t.Errorf("B's acquisition: %v", err)
			return
		}
		lb = sb.Orphan()
	})
	_, err = fence.Acquire(ctx, store, coord.New(wipe), "d", &fence.AcquireOptions{Holder: "A"})
	var fe *objstore.FencedError
	var te *fence.TakeoverError
	if !errors.As(err, &fe) || fe.ClaimedBy == "" || fe.Token != 7 || !errors.As(err, &te) || te.Token != 7 {
		t.Fatalf("A's acquisition after B took the same token: %v; want refused, token 7 claimed", err)
	}
	if lb.Token != 7 {
		t.Fatalf("B's token %d, want 7 (the wiped coordinator resumed above the store's 6)", lb.Token)
	}
	if st, err := leases.State(ctx, "d"); err != nil || st.Holder != "B" {
		t.Fatalf("lease state %+v, %v: A's failed takeover must leave B's lease alone", st, err)
	}
	if _, err := store.Put(ctx, "d", "k", lb.Token, strings.NewReader("B"), -1); err != nil {
		t.Fatalf("B commits: %v", err)
	}
}

// A Store wired to its coordinator with fence.Issuer refuses a token the
// coordinator never issued, and one whose lease has ended, with nothing
// written; the real holder commits afterwards.
func TestIssuerRefusesTokensNotIssued(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	leases := coord.New(bucketlease.New(mem, nil))
	store := objstore.New(mem, &objstore.Options{Issuer: fence.Issuer(leases)})
	if _, err := store.Put(ctx, "d", "k", 1, strings.NewReader("x"), -1); !errors.Is(err, objstore.ErrInvalid) {
		t.Fatalf("put before any lease: %v, want refused", err)
	}
	s1, err := fence.Acquire(ctx, store, leases, "d", &fence.AcquireOptions{Holder: "A", TTL: coord.MinTTL})
	if err != nil {
		t.Fatal(err)
	}
	l1 := s1.Lease()
	if err := s1.Release(ctx); err != nil {
		t.Fatal(err)
	}
	s2, err := fence.Acquire(ctx, store, leases, "d", &fence.AcquireOptions{Holder: "B", NoFence: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Release(ctx)
	l2 := s2.Lease()
	for _, tok := range []uint64{l2.Token + 1, 1000, objstore.MaxToken} {
		if _, err := store.Put(ctx, "d", "k", tok, strings.NewReader("typo"), -1); !errors.Is(err, objstore.ErrInvalid) {
			t.Fatalf("put with token %d, never issued: %v, want refused", tok, err)
		}
	}
	// B has not fenced yet (NoFence); its first put raises the domain.
	if _, err := store.Put(ctx, "d", "k", l2.Token, strings.NewReader("B"), -1); err != nil {
		t.Fatalf("B's put: %v", err)
	}
	if _, err := store.Put(ctx, "d", "k", l1.Token, strings.NewReader("late A"), -1); !errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("A's put after B's: %v, want fenced", err)
	}
}

// countingIssuer counts the issuer checks a Store makes.
type countingIssuer struct {
	objstore.TokenIssuer
	mu sync.Mutex
	n  int
}

func (c *countingIssuer) LastIssued(ctx context.Context, domain string) (uint64, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.TokenIssuer.LastIssued(ctx, domain)
}

// TestAcquireTwoRoundTrips: a takeover reads the store's highest token
// while it takes the lease (the manifest read is held until the lease
// record's write has arrived, which a sequential takeover never gets
// past), and its fence, with the coordinator's own answer for the token,
// asks the issuer nothing: two sequential round trips.
func TestAcquireTwoRoundTrips(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mem := memstore.New()
	leases := coord.New(bucketlease.New(mem, nil))
	iss := &countingIssuer{TokenIssuer: fence.Issuer(leases)}
	fb := faulty.New(mem)
	store := objstore.New(fb, &objstore.Options{Issuer: iss})
	if _, err := fence.Acquire(ctx, store, leases, "d", &fence.AcquireOptions{Holder: "first"}); err != nil {
		t.Fatal(err)
	}
	iss.n = 0
	leasing := make(chan struct{})
	var once sync.Once
	lease := faulty.Rule{Op: faulty.OpPut, Key: rules.SystemKey("d", bucketlease.RecordName), Every: true,
		Func: func(context.Context, faulty.Call) faulty.Fault {
			once.Do(func() { close(leasing) })
			return faulty.Fault{}
		}}
	floor := faulty.Rule{Op: faulty.OpGet, Key: format.ManifestKey("d"), Func: func(context.Context, faulty.Call) faulty.Fault {
		return faulty.Fault{Pause: leasing}
	}}
	leasesFB := coord.New(bucketlease.New(fb, nil))
	fb.Add(lease, floor)
	sess, err := fence.Acquire(ctx, store, leasesFB, "d", &fence.AcquireOptions{Holder: "second", Force: true})
	if err != nil {
		t.Fatalf("takeover: %v", err)
	}
	defer sess.Release(context.Background())
	if iss.n != 0 {
		t.Fatalf("the takeover's fence asked the issuer %d times, want 0 (the lease's token is the coordinator's answer)", iss.n)
	}
	if h, err := store.Highest(ctx, "d"); err != nil || h != sess.Lease().Token {
		t.Fatalf("highest %d, %v; want the new token %d", h, err, sess.Lease().Token)
	}
}
