package memstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

func get(t *testing.T, b *memstore.Backend, key string) string {
	t.Helper()
	rc, _, err := b.Get(t.Context(), key, driver.GetOptions{})
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func putString(ctx context.Context, b *memstore.Backend, key, s string, opts driver.PutOptions) (driver.ObjectInfo, error) {
	return b.Put(ctx, key, strings.NewReader(s), int64(len(s)), opts)
}

func TestContentIsCopied(t *testing.T) {
	b := memstore.New()
	data := []byte("original")
	if _, err := b.Put(t.Context(), "k", bytes.NewReader(data), -1, driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	copy(data, "XXXXXXXX")
	if got := get(t, b, "k"); got != "original" {
		t.Fatalf("stored content changed with the caller's buffer: %q", got)
	}
	b.Corrupt("c", data)
	data[0] = 'Y'
	if got := get(t, b, "c"); got != "XXXXXXXX" {
		t.Fatalf("Corrupt kept the caller's buffer: %q", got)
	}
}

func TestSizeMismatchAppliesNothing(t *testing.T) {
	b := memstore.New()
	for _, size := range []int64{3, 10} {
		if _, err := b.Put(t.Context(), "k", strings.NewReader("hello"), size, driver.PutOptions{}); err == nil {
			t.Fatalf("Put with size %d of a 5-byte body succeeded", size)
		}
	}
	if keys := b.Keys(); len(keys) != 0 {
		t.Fatalf("Keys() = %q after failed puts", keys)
	}
}

func TestErrFailsWithoutApplying(t *testing.T) {
	b := memstore.New()
	injected := &memstore.HTTPError{Status: 503, Code: "SlowDown"}
	b.SetHook(memstore.FailNext(memstore.OpPut, "k", injected))
	_, err := putString(t.Context(), b, "k", "v1", driver.PutOptions{})
	var he *memstore.HTTPError
	if !errors.As(err, &he) || he.Status != 503 {
		t.Fatalf("error = %v, want the injected 503", err)
	}
	if _, err := b.Head(t.Context(), "k"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("Head after a failed put: %v, want ErrNotFound", err)
	}
	// The fault fired once; the next put goes through.
	if _, err := putString(t.Context(), b, "k", "v2", driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := b.Calls(memstore.OpPut); got != 2 {
		t.Fatalf("Calls(OpPut) = %d, want 2", got)
	}
}

func TestDropReplyApplies(t *testing.T) {
	b := memstore.New()
	b.SetHook(memstore.Once(memstore.OpPut, "", memstore.Fault{DropReply: true}))
	_, err := putString(t.Context(), b, "k", "landed", driver.PutOptions{Mode: driver.Create{}})
	if !errors.Is(err, memstore.ErrReplyDropped) {
		t.Fatalf("error = %v, want ErrReplyDropped", err)
	}
	for _, class := range []error{objstore.ErrNotFound, driver.ErrPreconditionFailed, driver.ErrConflict} {
		if errors.Is(err, class) {
			t.Fatalf("a dropped reply matches %v; it must be ambiguous", class)
		}
	}
	if got := get(t, b, "k"); got != "landed" {
		t.Fatalf("content = %q, want the write whose reply was dropped", got)
	}
}

func TestErrAfterApplies(t *testing.T) {
	b := memstore.New()
	b.SetHook(func(_ context.Context, c memstore.Call) memstore.Fault {
		if c.Op == memstore.OpDelete {
			return memstore.Fault{ErrAfter: &memstore.HTTPError{Status: 500}}
		}
		return memstore.Fault{}
	})
	if _, err := putString(t.Context(), b, "k", "x", driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(t.Context(), "k"); err == nil {
		t.Fatal("Delete succeeded despite ErrAfter")
	}
	if keys := b.Keys(); len(keys) != 0 {
		t.Fatalf("Keys() = %q; the delete should have been applied", keys)
	}
	b.SetHook(nil)
	if err := b.Delete(t.Context(), "k"); err != nil {
		t.Fatalf("Delete after clearing the hook: %v", err)
	}
}

func TestHTTPErrorClasses(t *testing.T) {
	for _, tc := range []struct {
		status int
		class  error
	}{
		{404, objstore.ErrNotFound},
		{409, driver.ErrConflict},
		{412, driver.ErrPreconditionFailed},
		{500, nil},
		{503, nil},
	} {
		err := error(&memstore.HTTPError{Status: tc.status})
		for _, class := range []error{objstore.ErrNotFound, driver.ErrConflict, driver.ErrPreconditionFailed} {
			if got, want := errors.Is(err, class), class == tc.class; got != want {
				t.Errorf("errors.Is(HTTP %d, %v) = %v, want %v", tc.status, class, got, want)
			}
		}
	}
	if got := (&memstore.HTTPError{Status: 409, Code: "ConditionalRequestConflict"}).Error(); !strings.Contains(got, "ConditionalRequestConflict") {
		t.Errorf("Error() = %q, want the code", got)
	}
}

func TestPauseBlocksUntilReleased(t *testing.T) {
	b := memstore.New()
	release := make(chan struct{})
	reached := make(chan memstore.Call, 1)
	b.SetHook(func(_ context.Context, c memstore.Call) memstore.Fault {
		if c.Op != memstore.OpPut || !isUpdate(c.Opts) {
			return memstore.Fault{}
		}
		reached <- c
		return memstore.Fault{Pause: release}
	})
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
		t.Fatalf("hook saw %+v", c)
	}
	// While the stale writer is paused, another writer moves the object on.
	if _, err := putString(t.Context(), b, "k", "fresh", driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-done; !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("paused stale write: error = %v, want ErrPreconditionFailed", err)
	}
	if got := get(t, b, "k"); got != "fresh" {
		t.Fatalf("content = %q", got)
	}
}

func TestPauseAndDelayHonourContext(t *testing.T) {
	for name, f := range map[string]memstore.Fault{
		"Pause": {Pause: make(chan struct{})},
		"Delay": {Delay: time.Hour},
	} {
		t.Run(name, func(t *testing.T) {
			b := memstore.New()
			ctx, cancel := context.WithCancel(t.Context())
			b.SetHook(func(context.Context, memstore.Call) memstore.Fault {
				cancel()
				return f
			})
			_, err := putString(ctx, b, "k", "x", driver.PutOptions{})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error = %v, want context.Canceled", err)
			}
			if keys := b.Keys(); len(keys) != 0 {
				t.Fatalf("Keys() = %q; nothing should be applied", keys)
			}
		})
	}
}

func TestDelayDelays(t *testing.T) {
	b := memstore.New()
	b.SetHook(memstore.Once(memstore.OpHead, "k", memstore.Fault{Delay: 20 * time.Millisecond}))
	start := time.Now()
	b.Head(t.Context(), "k")
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Fatalf("Head returned after %v, before its delay", d)
	}
}

func TestHookSeesEveryCallConcurrently(t *testing.T) {
	b := memstore.New()
	var mu sync.Mutex
	seen := map[memstore.Op]int{}
	b.SetHook(func(_ context.Context, c memstore.Call) memstore.Fault {
		mu.Lock()
		seen[c.Op]++
		mu.Unlock()
		return memstore.Fault{}
	})
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
	for _, op := range []memstore.Op{memstore.OpGet, memstore.OpHead, memstore.OpPut, memstore.OpDelete, memstore.OpList} {
		if seen[op] != 8 || b.Calls(op) != 8 {
			t.Errorf("%s: hook saw %d calls, Calls says %d; want 8", op, seen[op], b.Calls(op))
		}
	}
}

func TestKeysAndList(t *testing.T) {
	b := memstore.New()
	for _, k := range []string{"b", "a/b", "a", "a-b"} {
		if _, err := putString(t.Context(), b, k, k, driver.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := b.Keys(), []string{"a", "a-b", "a/b", "b"}; !slices.Equal(got, want) {
		t.Fatalf("Keys() = %q, want %q", got, want)
	}
	// fn may call back into the backend without deadlocking.
	err := b.List(t.Context(), "a", func(o driver.ObjectInfo) error {
		return b.Delete(t.Context(), o.Key)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Keys(); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("Keys() = %q after deleting a*", got)
	}
}

func isUpdate(o driver.PutOptions) bool {
	_, ok := o.Mode.(driver.Update)
	return ok
}
