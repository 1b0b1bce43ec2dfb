package fence_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// noFenceAt acquires domain d with NoFence through store, from a
// coordinator of its own (one that never issued a token for d: as after
// a wipe), and returns its token: the store's highest + 1.
func noFenceAt(t *testing.T, store *objstore.Store, d string) uint64 {
	t.Helper()
	ctx := context.Background()
	sess, err := fence.Acquire(ctx, store, coord.New(bucketlease.New(memstore.New(), nil)), d, &fence.AcquireOptions{Holder: "A", NoFence: true})
	if err != nil {
		t.Fatal(err)
	}
	return sess.Orphan().Token
}

// With NoFence, the holder's first commit claims the token as the fence
// would have: when a second holder given the same token (a wiped
// coordinator) has already raised the domain to it, with a fence or with
// data, the commit is refused as claimed and nothing of it is visible.
func TestNoFenceFirstCommitClaims(t *testing.T) {
	for _, other := range []string{"fence", "data"} {
		t.Run(other, func(t *testing.T) {
			ctx := context.Background()
			mem := memstore.New()
			a := objstore.New(mem, nil)
			b := objstore.New(mem, nil) // the other holder's process
			if _, err := a.Put(ctx, "d", "k", 5, strings.NewReader("old"), -1); err != nil {
				t.Fatal(err)
			}
			tok := noFenceAt(t, a, "d")
			if tok != 6 {
				t.Fatalf("token %d, want 6", tok)
			}
			var res objstore.CommitResult
			var err error
			if other == "fence" {
				res, err = b.Fence(ctx, "d", tok)
			} else {
				res, err = b.Put(ctx, "d", "k", tok, strings.NewReader("B"), -1)
			}
			if err != nil {
				t.Fatalf("B's %s at %d: %v", other, tok, err)
			}
			_, err = a.Put(ctx, "d", "k", tok, strings.NewReader("A"), -1)
			var fe *objstore.FencedError
			if !errors.As(err, &fe) || fe.ClaimedBy != res.ID || fe.Token != tok {
				t.Fatalf("A's first put at %d after B's %s (commit %s): %v, want refused as claimed by it", tok, other, res.ID, err)
			}
			if !errors.Is(err, fence.ErrStale) || !strings.Contains(err.Error(), "claimed by commit "+res.ID) {
				t.Fatalf("A's refusal %q: want ErrStale naming commit %s", err, res.ID)
			}
			want := "old"
			if other == "data" {
				want = "B"
			}
			if got, _, err := b.ReadAll(ctx, "d", "k"); err != nil || string(got) != want {
				t.Fatalf("k = %q, %v; want %q: A's refused put must leave nothing", got, err, want)
			}
		})
	}
}

// Once the holder's first commit has raised the domain, the other holder
// of the same token cannot fence with it; the holder's own commits, in
// parallel ones too, all land, on a domain that did not exist as well.
func TestNoFenceClaimHoldsForOwnCommits(t *testing.T) {
	for _, existing := range []bool{true, false} {
		t.Run(fmt.Sprint("existing=", existing), func(t *testing.T) {
			ctx := context.Background()
			mem := memstore.New()
			a := objstore.New(mem, nil)
			b := objstore.New(mem, nil)
			if existing {
				if _, err := a.Put(ctx, "d", "k0", 5, strings.NewReader("old"), -1); err != nil {
					t.Fatal(err)
				}
			}
			tok := noFenceAt(t, a, "d")
			var wg sync.WaitGroup
			errs := make([]error, 8)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = a.Put(ctx, "d", fmt.Sprint("k", i+1), tok, strings.NewReader("A"), -1)
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("A's put %d of 8 in parallel at %d: %v", i+1, tok, err)
				}
			}
			var fe *objstore.FencedError
			if _, err := b.Fence(ctx, "d", tok); !errors.As(err, &fe) || fe.ClaimedBy == "" {
				t.Fatalf("B's fence at %d after A's commits: %v, want refused as claimed", tok, err)
			}
			if _, err := a.Put(ctx, "d", "k1", tok, strings.NewReader("again"), -1); err != nil {
				t.Fatalf("A's next put: %v", err)
			}
		})
	}
}

// Two commits under one claim, the first held at its manifest write while
// the second waits: one Store's commits to a domain no longer race (group
// commit), so the second queues behind the first, which raises the
// domain; the second then finds the domain raised by a commit of its own
// claim, and lands, rather than being refused as claimed.
func TestNoFenceClaimRacingOwnCommits(t *testing.T) {
	ctx := context.Background()
	fb := faulty.New(memstore.New())
	a := objstore.New(fb, nil)
	if _, err := a.Put(ctx, "d", "k0", 5, strings.NewReader("old"), -1); err != nil {
		t.Fatal(err)
	}
	tok := noFenceAt(t, a, "d")
	arrived, hold := make(chan struct{}), make(chan struct{})
	fb.Add(faulty.Rule{Op: faulty.OpPut, Key: format.ManifestKey("d"), Func: func(context.Context, faulty.Call) faulty.Fault {
		close(arrived)
		return faulty.Fault{Pause: hold}
	}})
	first := make(chan error, 1)
	go func() {
		_, err := a.Put(ctx, "d", "k1", tok, strings.NewReader("A1"), -1)
		first <- err
	}()
	<-arrived // the first commit, under the claim, is at its manifest write
	second := make(chan error, 1)
	go func() {
		_, err := a.Put(ctx, "d", "k2", tok, strings.NewReader("A2"), -1)
		second <- err
	}()
	close(hold)
	if err := <-first; err != nil {
		t.Fatalf("the first commit at %d: %v, want landed", tok, err)
	}
	if err := <-second; err != nil {
		t.Fatalf("the second commit at %d, after its sibling raised the domain: %v, want landed", tok, err)
	}
}

// The CLI's --no-fence prints its token for other processes, whose
// commits claim nothing: CheckUnclaimed refuses a token another holder
// has already written with.
func TestCheckUnclaimed(t *testing.T) {
	ctx := context.Background()
	store := objstore.New(memstore.New(), nil)
	if err := fence.CheckUnclaimed(ctx, store, "d", 1); err != nil {
		t.Fatalf("new domain: %v", err)
	}
	if _, err := store.Put(ctx, "d", "k", 3, strings.NewReader("x"), -1); err != nil {
		t.Fatal(err)
	}
	if err := fence.CheckUnclaimed(ctx, store, "d", 4); err != nil {
		t.Fatalf("token above the highest: %v", err)
	}
	var te *fence.TakeoverError
	if err := fence.CheckUnclaimed(ctx, store, "d", 3); !errors.As(err, &te) || te.Token != 3 || !strings.Contains(err.Error(), "issued token 3 again") {
		t.Fatalf("token at the highest: %v", err)
	}
}

// reissuing is a coordinator driver that, once it has issued a token,
// has another holder write with that token before the acquisition
// returns: the other holder of a token a wiped coordinator issued twice,
// committing between the new holder's floor read (read is closed when it
// has been answered) and its acquisition's answer.
type reissuing struct {
	coord.Driver
	other *objstore.Store
	read  <-chan struct{}
	t     *testing.T
}

func (r reissuing) TryAcquire(ctx context.Context, req coord.Request) (coord.Lease, error) {
	l, err := r.Driver.TryAcquire(ctx, req)
	if err == nil {
		<-r.read
		if _, perr := r.other.Put(ctx, req.Domain, "k", l.Token, strings.NewReader("other"), -1); perr != nil {
			r.t.Errorf("the other holder's put at %d: %v", l.Token, perr)
		}
	}
	return l, err
}

// readSignal closes read once a Get of key has been answered.
type readSignal struct {
	driver.Backend
	key  string
	once sync.Once
	read chan struct{}
}

func (r *readSignal) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	rc, info, err := r.Backend.Get(ctx, key, opts)
	if key == r.key {
		r.once.Do(func() { close(r.read) })
	}
	return rc, info, err
}

// AcquireToken hands a token to other processes (`fence lease acquire`):
// with NoFence it must refuse, and release, a token another holder wrote
// with between its floor read and its acquisition; the default refuses
// it at the fence. Without the reissue, the token is returned with the
// lease held and no session renewing it.
func TestAcquireTokenRefusesAClaimedToken(t *testing.T) {
	for _, noFence := range []bool{true, false} {
		t.Run(fmt.Sprint("NoFence=", noFence), func(t *testing.T) {
			ctx := context.Background()
			mem := memstore.New()
			sig := &readSignal{Backend: mem, key: faulty.Manifest("d"), read: make(chan struct{})}
			store, other := objstore.New(sig, nil), objstore.New(mem, nil)
			if _, err := other.Put(ctx, "d", "k", 1, strings.NewReader("first"), -1); err != nil {
				t.Fatal(err)
			}
			// The coordinator has issued token 1; the next is 2, which the
			// other holder writes with once the floor read (1) is done.
			leases := bucketlease.New(memstore.New(), nil)
			c := coord.New(leases)
			l, err := c.TakeLease(ctx, "d", &coord.TakeOptions{Holder: "Z"})
			if err != nil || c.Release(ctx, l) != nil {
				t.Fatalf("token 1: %+v, %v", l, err)
			}
			c = coord.New(reissuing{Driver: leases, other: other, read: sig.read, t: t})
			_, err = fence.AcquireToken(ctx, store, c, "d", &fence.AcquireOptions{Holder: "A", NoFence: noFence})
			var te *fence.TakeoverError
			if !errors.As(err, &te) || te.Token != 2 {
				t.Fatalf("AcquireToken of a token another holder wrote with = %v; want a *TakeoverError for token 2", err)
			}
			st, err := c.State(ctx, "d")
			if err != nil || st.Holder != "" {
				t.Fatalf("after the refusal the lease is %+v (%v); want it released", st, err)
			}
			if v, _, err := store.ReadAll(ctx, "d", "k"); err != nil || string(v) != "other" {
				t.Fatalf("d/k = %q, %v; want the other holder's value", v, err)
			}
		})
	}
	t.Run("unclaimed", func(t *testing.T) {
		ctx := context.Background()
		store := objstore.New(memstore.New(), nil)
		c := coord.New(bucketlease.New(memstore.New(), nil))
		l, err := fence.AcquireToken(ctx, store, c, "d", &fence.AcquireOptions{Holder: "A", NoFence: true})
		if err != nil || l.Token != 1 {
			t.Fatalf("AcquireToken = %+v, %v; want token 1", l, err)
		}
		if st, err := c.State(ctx, "d"); err != nil || st.Holder != "A" || st.Token != 1 {
			t.Fatalf("lease %+v (%v); want held by A at token 1", st, err)
		}
	})
}
