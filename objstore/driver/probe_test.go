package driver_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/memstore"
)

// probeRuns numbers the tests' backends.
var probeRuns atomic.Int64

// uniqueName names a test's backend (its Location) uniquely in the
// process: a probe that passed is remembered by Location for the life of
// the process, and go test -count=N runs a test N times in one.
func uniqueName(t *testing.T) string {
	return fmt.Sprintf("%s-%d", t.Name(), probeRuns.Add(1))
}

// checkThenWrite honours If-None-Match only without concurrency, as some
// stores do: a Create reads the key and, finding nothing, writes
// unconditionally a moment later, so concurrent creates of a new key all
// succeed. Each has a Location of its own.
type checkThenWrite struct {
	*memstore.Backend
	name string
}

func (b checkThenWrite) Put(ctx context.Context, key string, r io.Reader, size int64, o driver.PutOptions) (driver.ObjectInfo, error) {
	if _, ok := o.Mode.(driver.Create); ok {
		if _, err := b.Head(ctx, key); err == nil {
			return driver.ObjectInfo{}, driver.ErrPreconditionFailed
		}
		time.Sleep(20 * time.Millisecond)
		o.Mode = nil
	}
	return b.Backend.Put(ctx, key, r, size, o)
}

func (b checkThenWrite) Location() string { return "check-then-write://" + b.name }

func TestProbeRefusesUnorderedCreates(t *testing.T) {
	mem := memstore.New()
	b := checkThenWrite{mem, uniqueName(t)}
	err := driver.Probe(t.Context(), b)
	if !errors.Is(err, driver.ErrUnsafeStore) || !strings.Contains(err.Error(), fmt.Sprintf("of %d concurrent writes with If-None-Match: * to one new key succeeded", driver.ProbeRacers)) {
		t.Fatalf("Probe of a store that honours If-None-Match only without concurrency: %v; want ErrUnsafeStore naming the concurrent writes", err)
	}
	if keys := mem.Keys(); len(keys) != 0 {
		t.Fatalf("the probe left %q", keys)
	}
	// A Store over it writes nothing.
	if _, err := objstore.New(b, nil).Put(t.Context(), "d", "k", 1, strings.NewReader("x"), 1); !errors.Is(err, objstore.ErrUnsafeStore) {
		t.Fatalf("Put: %v, want ErrUnsafeStore", err)
	}
	if keys := mem.Keys(); len(keys) != 0 {
		t.Fatalf("a refused store was written to: %q", keys)
	}
}

// losersLand answers one Create of a new key with success and the others
// with 412, but lets every one of them write: the object ends up holding
// a loser's bytes.
type losersLand struct {
	*memstore.Backend
	creates atomic.Int32
	won     chan struct{} // closed once the first create has returned
}

func (b *losersLand) Put(ctx context.Context, key string, r io.Reader, size int64, o driver.PutOptions) (driver.ObjectInfo, error) {
	if _, ok := o.Mode.(driver.Create); ok {
		// The number each create drew decides who wins: the counter may
		// have moved on by the time a create reads it again.
		// The losers write after the winner, however slow it is.
		n := b.creates.Add(1)
		if n > driver.ProbeRacers {
			return b.Backend.Put(ctx, key, r, size, o)
		}
		if n == 1 {
			defer close(b.won)
			return b.Backend.Put(ctx, key, r, size, o)
		}
		select {
		case <-b.won:
		case <-ctx.Done():
			return driver.ObjectInfo{}, ctx.Err()
		}
		o.Mode = nil
		if _, err := b.Backend.Put(ctx, key, r, size, o); err != nil {
			return driver.ObjectInfo{}, err
		}
		return driver.ObjectInfo{}, driver.ErrPreconditionFailed
	}
	return b.Backend.Put(ctx, key, r, size, o)
}

func (b *losersLand) Location() string { return "losers-land://" }

func TestProbeRefusesLandedLosers(t *testing.T) {
	err := driver.Probe(t.Context(), &losersLand{Backend: memstore.New(), won: make(chan struct{})})
	if !errors.Is(err, driver.ErrUnsafeStore) || !strings.Contains(err.Error(), "a write that failed replaced it") {
		t.Fatalf("Probe of a store where a failed create lands: %v; want ErrUnsafeStore saying so", err)
	}
}

// multipartMem is a memory store with a multipart path that honours the
// precondition; it counts its multipart puts.
type multipartMem struct {
	*memstore.Backend
	name      string
	multipart atomic.Int32
}

func (b *multipartMem) PutMultipart(ctx context.Context, key string, r io.Reader, size int64, o driver.PutOptions) (driver.ObjectInfo, error) {
	b.multipart.Add(1)
	return b.Put(ctx, key, r, size, o)
}

func (b *multipartMem) Location() string { return "multipart-mem://" + b.name }

// The probe proves the precondition on CompleteMultipartUpload: a store
// that honours it passes after three multipart puts; one that ignores it
// there alone is refused, with an error naming CompleteMultipartUpload,
// and a Store over it writes nothing.
func TestProbeMultipart(t *testing.T) {
	ctx := t.Context()
	good := &multipartMem{Backend: memstore.New(), name: uniqueName(t)}
	if err := driver.Probe(ctx, good); err != nil {
		t.Fatalf("Probe of a store that honours the precondition on its multipart path: %v", err)
	}
	if n := good.multipart.Load(); n != 3 {
		t.Fatalf("%d multipart puts, want 3 (a new key, then If-None-Match: * and a stale If-Match on it)", n)
	}
	mem := memstore.New()
	bad := drivertest.IgnoreConditionsOnComplete(&multipartMem{Backend: mem, name: uniqueName(t)}, 1<<20)
	err := driver.Probe(ctx, bad)
	if !errors.Is(err, driver.ErrUnsafeStore) || !strings.Contains(err.Error(), "CompleteMultipartUpload carried If-None-Match: * replaced an existing object") {
		t.Fatalf("Probe of a store that ignores the precondition on CompleteMultipartUpload: %v; want ErrUnsafeStore naming it", err)
	}
	if _, err := objstore.New(bad, nil).Put(ctx, "d", "k", 1, strings.NewReader("x"), 1); !errors.Is(err, objstore.ErrUnsafeStore) {
		t.Fatalf("Put: %v, want ErrUnsafeStore", err)
	}
	if keys := mem.Keys(); len(keys) != 0 {
		t.Fatalf("a refused store was written to: %q", keys)
	}
}

// staleOnly ignores a stale If-Match on its multipart path, and honours
// If-None-Match there.
type staleOnly struct{ *multipartMem }

func (b staleOnly) PutMultipart(ctx context.Context, key string, r io.Reader, size int64, o driver.PutOptions) (driver.ObjectInfo, error) {
	if _, ok := o.Mode.(driver.Update); ok {
		o.Mode = nil
	}
	return b.multipartMem.PutMultipart(ctx, key, r, size, o)
}

func TestProbeMultipartStaleIfMatch(t *testing.T) {
	b := staleOnly{&multipartMem{Backend: memstore.New(), name: uniqueName(t)}}
	err := driver.Probe(t.Context(), b)
	if !errors.Is(err, driver.ErrUnsafeStore) || !strings.Contains(err.Error(), "CompleteMultipartUpload carried a stale If-Match") {
		t.Fatalf("Probe: %v; want ErrUnsafeStore naming the stale If-Match on CompleteMultipartUpload", err)
	}
}

// notImplemented refuses a conditional CompleteMultipartUpload outright:
// the probe fails, naming the store's answer, but does not call the store
// unsafe.
type notImplemented struct{ *multipartMem }

func (b notImplemented) PutMultipart(context.Context, string, io.Reader, int64, driver.PutOptions) (driver.ObjectInfo, error) {
	return driver.ObjectInfo{}, errors.New("s3: CompleteMultipartUpload: 501 NotImplemented")
}

func TestProbeMultipartRefused(t *testing.T) {
	b := notImplemented{&multipartMem{Backend: memstore.New(), name: uniqueName(t)}}
	err := driver.Probe(t.Context(), b)
	if err == nil || errors.Is(err, driver.ErrUnsafeStore) || !strings.Contains(err.Error(), "If-None-Match: * on CompleteMultipartUpload failed, so no large write could succeed") || !strings.Contains(err.Error(), "NotImplemented") {
		t.Fatalf("Probe: %v; want an error naming CompleteMultipartUpload and the store's answer", err)
	}
}
