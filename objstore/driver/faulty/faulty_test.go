package faulty_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

func newBackend() (*faulty.Backend, *memstore.Backend) {
	mem := memstore.New()
	return faulty.New(mem), mem
}

func putString(ctx context.Context, b driver.Backend, key, s string, opts driver.PutOptions) (driver.ObjectInfo, error) {
	return b.Put(ctx, key, strings.NewReader(s), int64(len(s)), opts)
}

func TestErrFailsWithoutApplying(t *testing.T) {
	b, mem := newBackend()
	injected := &faulty.HTTPError{Status: 503, Code: "SlowDown"}
	b.Add(faulty.FailNext(faulty.OpPut, "k", injected))
	_, err := putString(t.Context(), b, "k", "v1", driver.PutOptions{})
	var he *faulty.HTTPError
	if !errors.As(err, &he) || he.Status != 503 {
		t.Fatalf("error = %v, want the injected 503", err)
	}
	if keys := mem.Keys(); len(keys) != 0 {
		t.Fatalf("Keys() = %q after a failed put", keys)
	}
	// The fault fired once; the next put goes through.
	if _, err := putString(t.Context(), b, "k", "v2", driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := b.Calls(faulty.OpPut); got != 2 {
		t.Fatalf("Calls(OpPut) = %d, want 2", got)
	}
}

func TestDropReplyApplies(t *testing.T) {
	b, mem := newBackend()
	b.Add(faulty.Once(faulty.OpPut, "", faulty.Fault{DropReply: true}))
	_, err := putString(t.Context(), b, "k", "landed", driver.PutOptions{Mode: driver.Create{}})
	if !errors.Is(err, faulty.ErrReplyDropped) {
		t.Fatalf("error = %v, want ErrReplyDropped", err)
	}
	for _, class := range []error{driver.ErrNotFound, driver.ErrPreconditionFailed, driver.ErrConflict} {
		if errors.Is(err, class) {
			t.Fatalf("a dropped reply matches %v; it must be ambiguous", class)
		}
	}
	if got := drivertest.ReadString(t, mem, "k"); got != "landed" {
		t.Fatalf("content = %q, want the write whose reply was dropped", got)
	}
}

func TestDropReplyOfEveryOp(t *testing.T) {
	b, mem := newBackend()
	ctx := t.Context()
	if _, err := putString(ctx, mem, "k", "x", driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	b.Add(faulty.Always("", "", faulty.Fault{DropReply: true}))
	if _, _, err := b.Get(ctx, "k", driver.GetOptions{}); !errors.Is(err, faulty.ErrReplyDropped) {
		t.Errorf("Get: %v", err)
	}
	if _, err := b.Head(ctx, "k"); !errors.Is(err, faulty.ErrReplyDropped) {
		t.Errorf("Head: %v", err)
	}
	var listed []string
	err := b.List(ctx, "", func(o driver.ObjectInfo) error { listed = append(listed, o.Key); return nil })
	if !errors.Is(err, faulty.ErrReplyDropped) || len(listed) != 1 {
		t.Errorf("List: %v, fn saw %q", err, listed)
	}
	if err := b.Delete(ctx, "k"); !errors.Is(err, faulty.ErrReplyDropped) {
		t.Errorf("Delete: %v", err)
	}
	if keys := mem.Keys(); len(keys) != 0 {
		t.Errorf("Keys() = %q; the delete whose reply was dropped should have been applied", keys)
	}
}

func TestErrAfterApplies(t *testing.T) {
	b, mem := newBackend()
	b.Add(faulty.Always(faulty.OpDelete, "", faulty.Fault{ErrAfter: &faulty.HTTPError{Status: 500}}))
	if _, err := putString(t.Context(), b, "k", "x", driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(t.Context(), "k"); err == nil {
		t.Fatal("Delete succeeded despite ErrAfter")
	}
	if keys := mem.Keys(); len(keys) != 0 {
		t.Fatalf("Keys() = %q; the delete should have been applied", keys)
	}
	b.Clear()
	if err := b.Delete(t.Context(), "k"); err != nil {
		t.Fatalf("Delete after Clear: %v", err)
	}
}

// A call that fails on its own returns its own error: the reply faults
// and Then are only for calls that were applied.
func TestFailedCallKeepsItsError(t *testing.T) {
	b, _ := newBackend()
	ran := false
	b.Add(faulty.Once(faulty.OpPut, "k", faulty.Fault{DropReply: true, Then: func() { ran = true }}))
	_, err := putString(t.Context(), b, "k", "x", driver.PutOptions{Mode: driver.Update{ETag: "nope"}})
	if !errors.Is(err, driver.ErrPreconditionFailed) || errors.Is(err, faulty.ErrReplyDropped) {
		t.Fatalf("error = %v, want the backend's ErrPreconditionFailed", err)
	}
	if ran {
		t.Fatal("Then ran for a call that failed")
	}
}

func TestThenRunsBeforeTheReply(t *testing.T) {
	b, mem := newBackend()
	b.Add(faulty.Once(faulty.OpPut, "k", faulty.Fault{Then: func() {
		// The write has landed; another writer moves the object on
		// before the first one's reply returns.
		if _, err := putString(context.Background(), mem, "k", "later", driver.PutOptions{}); err != nil {
			t.Error(err)
		}
	}}))
	if _, err := putString(t.Context(), b, "k", "first", driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := drivertest.ReadString(t, mem, "k"); got != "later" {
		t.Fatalf("content = %q", got)
	}
}

func TestHTTPErrorClasses(t *testing.T) {
	for _, tc := range []struct {
		status int
		class  error
	}{
		{404, driver.ErrNotFound},
		{409, driver.ErrConflict},
		{412, driver.ErrPreconditionFailed},
		{500, nil},
		{503, nil},
	} {
		err := error(&faulty.HTTPError{Status: tc.status})
		for _, class := range []error{driver.ErrNotFound, driver.ErrConflict, driver.ErrPreconditionFailed} {
			if got, want := errors.Is(err, class), class == tc.class; got != want {
				t.Errorf("errors.Is(HTTP %d, %v) = %v, want %v", tc.status, class, got, want)
			}
		}
	}
	if got := (&faulty.HTTPError{Status: 409, Code: "ConditionalRequestConflict"}).Error(); !strings.Contains(got, "ConditionalRequestConflict") {
		t.Errorf("Error() = %q, want the code", got)
	}
}

func TestPauseBlocksUntilReleased(t *testing.T) {
	b, _ := newBackend()
	release := make(chan struct{})
	reached := make(chan faulty.Call, 1)
	b.Add(faulty.Rule{Op: faulty.OpPut, Mode: driver.Update{}, Func: func(_ context.Context, c faulty.Call) faulty.Fault {
		reached <- c
		return faulty.Fault{Pause: release}
	}})
	base, err := putString(t.Context(), b, "k", "base", driver.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := putString(t.Context(), b, "k", "stale", driver.PutOptions{Mode: driver.Update{ETag: base.ETag}})
		done <- err
	}()
	c := <-reached
	if c.Key != "k" || c.Opts.Mode != (driver.Update{ETag: base.ETag}) {
		t.Fatalf("rule saw %+v", c)
	}
	// While the stale writer is paused, another writer moves the object on.
	if _, err := putString(t.Context(), b, "k", "fresh", driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-done; !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("paused stale write: error = %v, want ErrPreconditionFailed", err)
	}
	if got := drivertest.ReadString(t, b, "k"); got != "fresh" {
		t.Fatalf("content = %q", got)
	}
}

func TestPauseAndDelayHonourContext(t *testing.T) {
	for name, f := range map[string]faulty.Fault{
		"Pause": {Pause: make(chan struct{})},
		"Delay": {Delay: time.Hour},
	} {
		t.Run(name, func(t *testing.T) {
			b, mem := newBackend()
			ctx, cancel := context.WithCancel(t.Context())
			b.Add(faulty.Once(faulty.OpPut, "k", f))
			done := make(chan error, 1)
			go func() {
				_, err := putString(ctx, b, "k", "x", driver.PutOptions{})
				done <- err
			}()
			select {
			case err := <-done:
				t.Fatalf("put returned before its fault ended: %v", err)
			case <-time.After(20 * time.Millisecond):
			}
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("error = %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("put did not return once its context ended")
			}
			if keys := mem.Keys(); len(keys) != 0 {
				t.Fatalf("Keys() = %q; nothing should be applied", keys)
			}
		})
	}
}

func TestDelayDelays(t *testing.T) {
	b, _ := newBackend()
	b.Add(faulty.Once(faulty.OpHead, "k", faulty.Fault{Delay: 20 * time.Millisecond}))
	start := time.Now()
	b.Head(t.Context(), "k")
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Fatalf("Head returned after %v, before its delay", d)
	}
}

func TestRuleMatching(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		rule faulty.Rule
		// fails lists, for each put in turn, whether it fails.
		fails []bool
	}{
		{"Once", faulty.Once(faulty.OpPut, "", faulty.Fault{Err: boom}), []bool{true, false, false}},
		{"Always", faulty.Always(faulty.OpPut, "", faulty.Fault{Err: boom}), []bool{true, true, true}},
		{"Skip", faulty.Rule{Op: faulty.OpPut, Skip: 1, Fault: faulty.Fault{Err: boom}}, []bool{false, true, false}},
		{"SkipEvery", faulty.Rule{Op: faulty.OpPut, Skip: 1, Every: true, Fault: faulty.Fault{Err: boom}}, []bool{false, true, true}},
		{"OtherKey", faulty.Once(faulty.OpPut, "other", faulty.Fault{Err: boom}), []bool{false, false}},
		{"OtherOp", faulty.Once(faulty.OpDelete, "", faulty.Fault{Err: boom}), []bool{false, false}},
		{"Match", faulty.Rule{Match: func(c faulty.Call) bool { return strings.HasPrefix(c.Key, "k") }, Fault: faulty.Fault{Err: boom}}, []bool{true, false}},
		{"ModeOverwrite", faulty.Rule{Mode: driver.Overwrite{}, Every: true, Fault: faulty.Fault{Err: boom}}, []bool{true, true}},
		{"ModeCreate", faulty.Rule{Mode: driver.Create{}, Fault: faulty.Fault{Err: boom}}, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newBackend()
			b.Add(tc.rule)
			for i, want := range tc.fails {
				_, err := putString(t.Context(), b, "k", "x", driver.PutOptions{})
				if got := errors.Is(err, boom); got != want {
					t.Fatalf("put %d: error %v, want failure %v", i, err, want)
				}
			}
		})
	}
}

// Rules are tried in the order they were added; the first live one
// that matches decides, so two once-rules fire on two calls in turn.
func TestRulesInOrder(t *testing.T) {
	b, _ := newBackend()
	first, second := errors.New("first"), errors.New("second")
	b.Add(faulty.FailNext(faulty.OpPut, "k", first), faulty.FailNext(faulty.OpPut, "", second))
	for _, want := range []error{first, second, nil} {
		_, err := putString(t.Context(), b, "k", "x", driver.PutOptions{})
		if want == nil && err != nil || want != nil && !errors.Is(err, want) {
			t.Fatalf("error = %v, want %v", err, want)
		}
	}
}

// A Func may call the backend, Clear and Add included, without
// deadlocking, and gets the call's context.
func TestFuncMayCallTheBackend(t *testing.T) {
	b, _ := newBackend()
	type key struct{}
	ctx := context.WithValue(t.Context(), key{}, "v")
	b.Add(faulty.Rule{Op: faulty.OpPut, Func: func(ctx context.Context, c faulty.Call) faulty.Fault {
		if ctx.Value(key{}) != "v" {
			t.Error("Func did not get the call's context")
		}
		b.Clear()
		b.Add(faulty.FailNext(faulty.OpHead, "", errors.New("next")))
		if _, err := b.Head(ctx, c.Key); err == nil {
			t.Error("the rule Func added did not fire")
		}
		return faulty.Fault{}
	}})
	if _, err := putString(ctx, b, "k", "x", driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestFuncSeesEveryCallConcurrently(t *testing.T) {
	b, _ := newBackend()
	var mu sync.Mutex
	seen := map[faulty.Op]int{}
	b.Add(faulty.Func(func(_ context.Context, c faulty.Call) faulty.Fault {
		mu.Lock()
		seen[c.Op]++
		mu.Unlock()
		return faulty.Fault{}
	}))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ctx := t.Context()
			putString(ctx, b, "k", "x", driver.PutOptions{})
			b.Head(ctx, "k")
			if rc, _, err := b.Get(ctx, "k", driver.GetOptions{}); err == nil {
				rc.Close()
			}
			b.List(ctx, "", func(driver.ObjectInfo) error { return nil })
			b.Delete(ctx, "other")
		})
	}
	wg.Wait()
	for _, op := range []faulty.Op{faulty.OpGet, faulty.OpHead, faulty.OpPut, faulty.OpDelete, faulty.OpList} {
		if seen[op] != 8 || b.Calls(op) != 8 {
			t.Errorf("%s: Func saw %d calls, Calls says %d; want 8", op, seen[op], b.Calls(op))
		}
	}
}
