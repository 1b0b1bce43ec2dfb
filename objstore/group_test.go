package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// manifestWrites records the manifests a backend was asked to write for
// one domain, landed or not, decoded.
type manifestWrites struct {
	driver.Backend
	key string
	mu  sync.Mutex
	all []*format.Manifest
}

func (w *manifestWrites) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	if key != w.key {
		return w.Backend.Put(ctx, key, body, size, opts)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return driver.ObjectInfo{}, err
	}
	m, err := format.Decode("g", key, data)
	if err != nil {
		return driver.ObjectInfo{}, fmt.Errorf("test: a manifest write that does not decode: %w", err)
	}
	w.mu.Lock()
	w.all = append(w.all, m)
	w.mu.Unlock()
	return w.Backend.Put(ctx, key, bytes.NewReader(data), int64(len(data)), opts)
}

func (w *manifestWrites) writes() []*format.Manifest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*format.Manifest(nil), w.all...)
}

// groupRig is a Store over memstore whose next manifest write of domain
// "g" can be held while commits queue behind it.
type groupRig struct {
	t    *testing.T
	s    *Store
	f    *faulty.Backend
	w    *manifestWrites
	gate chan struct{}
}

func newGroupRig(t *testing.T, fence uint64) *groupRig {
	t.Helper()
	w := &manifestWrites{Backend: memstore.New(), key: format.ManifestKey("g")}
	f := faulty.New(w)
	r := &groupRig{t: t, s: New(f, &Options{Holder: "rig"}), f: f, w: w}
	if _, err := r.s.Fence(context.Background(), "g", fence); err != nil {
		t.Fatal(err)
	}
	return r
}

// hold makes the next manifest write wait until release, and starts a
// commit at token that makes it; it returns once that write is held.
func (r *groupRig) hold(token uint64, key string) <-chan error {
	r.gate = make(chan struct{})
	held := make(chan struct{})
	gate := r.gate
	r.f.Add(faulty.Rule{Op: faulty.OpPut, Key: r.w.key, Func: func(context.Context, faulty.Call) faulty.Fault {
		close(held)
		return faulty.Fault{Pause: gate}
	}})
	done := r.put(token, key)
	select {
	case <-held:
	case err := <-done:
		r.t.Fatalf("the held commit ended: %v", err)
	}
	return done
}

func (r *groupRig) put(token uint64, key string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := r.s.Put(context.Background(), "g", key, token, bytes.NewReader([]byte("v "+key)), -1)
		done <- err
	}()
	return done
}

// waitQueued waits until n commits wait behind the held write.
func (r *groupRig) waitQueued(n int) {
	for range 5000 {
		r.s.groups.mu.Lock()
		q := r.s.groups.m["g"]
		got := 0
		if q != nil {
			got = len(q.queue)
		}
		r.s.groups.mu.Unlock()
		if got == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	r.t.Fatalf("%d commits never queued", n)
}

// queue starts a commit at token for each key, one after another, each
// once the one before it waits in the queue, and returns their results.
func (r *groupRig) queue(token uint64, keys ...string) []<-chan error {
	var done []<-chan error
	for i, k := range keys {
		done = append(done, r.put(token, k))
		r.waitQueued(i + 1)
	}
	return done
}

// keys returns n keys named by format (one %d).
func keys(format string, n int) []string {
	var ks []string
	for i := range n {
		ks = append(ks, fmt.Sprintf(format, i))
	}
	return ks
}

// Commits that queue behind a write in flight go in the next write
// together, each with its own log entry and seq.
func TestGroupMergesQueuedCommits(t *testing.T) {
	r := newGroupRig(t, 2)
	first := r.hold(2, "first")
	rest := r.queue(2, keys("k%02d", 15)...)
	close(r.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, done := range rest {
		if err := <-done; err != nil {
			t.Fatalf("k%02d: %v", i, err)
		}
	}
	ws := r.w.writes()
	if len(ws) != 3 { // the fence, the held commit, the 15 merged
		t.Fatalf("%d manifest writes, want 3: the fence, the held commit, and one for the 15 that queued", len(ws))
	}
	last := ws[2]
	if last.Seq != 2+15 || len(last.Log) != 17 {
		t.Fatalf("the merged write is at seq %d with %d log entries, want 17 and 17", last.Seq, len(last.Log))
	}
	for i, e := range last.Log[2:] {
		if e.Seq != uint64(3+i) || e.Puts != 1 || len(e.PutKeys) != 1 {
			t.Fatalf("log entry %d of the merged write: %+v", i, e)
		}
	}
	for i := range 15 {
		got, _, err := r.s.ReadAll(context.Background(), "g", fmt.Sprintf("k%02d", i))
		if err != nil || string(got) != fmt.Sprintf("v k%02d", i) {
			t.Fatalf("read k%02d: %q, %v", i, got, err)
		}
	}
}

// A merged write whose reply is lost is read back, and each of its
// commits is found in the log: all succeed.
func TestGroupMergedReplyLost(t *testing.T) {
	r := newGroupRig(t, 2)
	first := r.hold(2, "first")
	rest := r.queue(2, keys("k%d", 8)...)
	r.f.Add(faulty.Once(faulty.OpPut, r.w.key, faulty.Fault{DropReply: true}))
	close(r.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, done := range rest {
		if err := <-done; err != nil {
			t.Fatalf("k%d: %v", i, err)
		}
	}
	if ws := r.w.writes(); len(ws) != 3 {
		t.Fatalf("%d manifest writes, want 3 (the lost reply's write landed, and was found)", len(ws))
	}
}

// A merged write that fails and cannot be settled (the log moved past it
// before it was read back) leaves every one of its commits with an
// unknown outcome, not one of them reported as not applied.
func TestGroupMergedWriteUnknown(t *testing.T) {
	r := newGroupRig(t, 2)
	first := r.hold(2, "first")
	rest := r.queue(2, keys("k%d", 4)...)
	other := New(r.f.Unwrap(), &Options{Holder: "other", LogLimit: 4})
	r.f.Add(faulty.Once(faulty.OpPut, r.w.key, faulty.Fault{ErrAfter: errors.New("test: 503"), Then: func() {
		// Another writer moves the log past the merged write.
		for i := range 8 {
			if _, err := other.Put(context.Background(), "g", fmt.Sprintf("o%d", i), 2, bytes.NewReader([]byte("o")), 1); err != nil {
				t.Error(err)
			}
		}
	}}))
	close(r.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, done := range rest {
		if err := <-done; !errors.Is(err, ErrOutcomeUnknown) {
			t.Fatalf("k%d: %v, want an unknown outcome", i, err)
		}
	}
}

// Commits at different tokens never share a write: a batch holds the
// oldest waiting commit's token only, and a commit that raises the
// domain's highest token is written alone; the commits below the token it
// raised to are fenced, each on its own, their neighbours unharmed.
func TestGroupTokensNeverShareAWrite(t *testing.T) {
	r := newGroupRig(t, 2)
	first := r.hold(2, "first")
	tokens := []uint64{3, 2, 3, 2, 3}
	var rest []<-chan error
	for i, tok := range tokens {
		rest = append(rest, r.put(tok, fmt.Sprintf("k%d", i)))
		r.waitQueued(i + 1)
	}
	close(r.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, done := range rest {
		err := <-done
		if tokens[i] == 2 {
			var fe *FencedError
			if !errors.As(err, &fe) || fe.Highest != 3 {
				t.Fatalf("k%d at token 2: %v, want fenced by 3", i, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("k%d at token %d: %v", i, tokens[i], err)
		}
	}
	ws := r.w.writes()
	for i := 1; i < len(ws); i++ {
		prev, cur := ws[i-1], ws[i]
		var tok uint64
		for _, e := range cur.Log {
			if e.Seq <= prev.Seq {
				continue
			}
			if tok != 0 && e.Token != tok {
				t.Fatalf("write %d carries commits at tokens %d and %d", i, tok, e.Token)
			}
			tok = e.Token
			if e.Token > prev.Highest && e.Seq != prev.Seq+1 || e.Token > prev.Highest && cur.Seq != e.Seq {
				t.Fatalf("write %d raises the highest token from %d to %d, not alone", i, prev.Highest, e.Token)
			}
		}
	}
	// The fence, the held commit, the first at 3 alone, the other two.
	if len(ws) != 4 {
		t.Fatalf("%d manifest writes, want 4", len(ws))
	}
}

// A commit whose context ends while it waits for its turn leaves the
// queue, not applied, and its neighbours go on.
func TestGroupWaiterCancelled(t *testing.T) {
	r := newGroupRig(t, 2)
	first := r.hold(2, "first")
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan error, 1)
	go func() {
		_, err := r.s.Put(ctx, "g", "gone", 2, bytes.NewReader([]byte("x")), 1)
		gone <- err
	}()
	r.waitQueued(1)
	stay := r.put(2, "stay")
	r.waitQueued(2)
	cancel()
	err := <-gone
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("a commit cancelled in the queue: %v, want not applied, context.Canceled", err)
	}
	close(r.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-stay; err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.s.ReadAll(context.Background(), "g", "gone"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read of the cancelled key: %v, want not found", err)
	}
}
