package objstore_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/rules"
)

// versionsOnly is a Store's options with inline values off, for tests of
// the version objects themselves.
var versionsOnly = &objstore.Options{InlineMax: -1}

// TestCommitRoundTrips: once a Store has seen a domain's manifest, a commit
// of a small value costs one round trip, the manifest write that carries
// it inline; with inline values off, two, the version upload and the
// manifest write. A manifest changed by another writer costs one read
// more, not an error.
func TestCommitRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *objstore.Options
		puts int64
	}{{"inline", nil, 1}, {"versions", versionsOnly, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			mem := faulty.New(memstore.New())
			a := objstore.New(mem, tc.opts)
			b := objstore.New(mem, tc.opts)
			if _, err := a.Put(ctx, "d", "k", 1, strings.NewReader("a1"), 2); err != nil {
				t.Fatal(err)
			}
			gets, puts := mem.Calls(faulty.OpGet), mem.Calls(faulty.OpPut)
			if _, err := a.Put(ctx, "d", "k", 1, strings.NewReader("a2"), 2); err != nil {
				t.Fatal(err)
			}
			if g, p := mem.Calls(faulty.OpGet)-gets, mem.Calls(faulty.OpPut)-puts; g != 0 || p != tc.puts {
				t.Fatalf("warm commit made %d gets and %d puts, want 0 and %d", g, p, tc.puts)
			}
			if _, err := b.Put(ctx, "d", "k", 2, strings.NewReader("b"), 1); err != nil {
				t.Fatal(err)
			}
			// a's cached manifest is stale: its write fails with 412, it
			// re-reads and finds itself fenced.
			_, err := a.Put(ctx, "d", "k", 1, strings.NewReader("a3"), 2)
			if !errors.Is(err, objstore.ErrFenced) {
				t.Fatalf("stale cached manifest: err = %v, want fenced", err)
			}
			if _, err := a.Put(ctx, "d", "k", 2, strings.NewReader("a4"), 2); err != nil {
				t.Fatalf("equal token after refresh: %v", err)
			}
			got, _, err := b.ReadAll(ctx, "d", "k")
			if err != nil || string(got) != "a4" {
				t.Fatalf("read = %q, %v", got, err)
			}
		})
	}
}

// TestFirstCommitRaceIsNotCorruption replays a race the MinIO suite found:
// writer A reads no manifest; writer B creates the manifest and uploads a
// version; A's check for objects without a manifest then finds B's
// version. A must read the manifest again, not fail closed.
func TestFirstCommitRaceIsNotCorruption(t *testing.T) {
	ctx := context.Background()
	mem := faulty.New(memstore.New())
	a := objstore.New(mem, &objstore.Options{SkipProbe: true})
	b := objstore.New(mem, &objstore.Options{SkipProbe: true})
	listing, proceed := make(chan struct{}), make(chan struct{})
	mem.Add(faulty.Rule{Op: faulty.OpList, Key: rules.SystemKey("d", ""), Func: func(context.Context, faulty.Call) faulty.Fault {
		close(listing)
		return faulty.Fault{Pause: proceed}
	}})
	done := make(chan error, 1)
	go func() {
		_, err := a.Put(ctx, "d", "k", 1, strings.NewReader("A"), 1)
		done <- err
	}()
	<-listing // A found no manifest and is about to list versions
	if _, err := b.Put(ctx, "d", "k", 1, strings.NewReader("B"), 1); err != nil {
		t.Fatal(err)
	}
	close(proceed)
	if err := <-done; err != nil {
		t.Fatalf("A's first commit: %v", err)
	}
	got, _, err := b.ReadAll(ctx, "d", "k")
	if err != nil || string(got) != "A" {
		t.Fatalf("read = %q, %v; want A's later commit", got, err)
	}
}

// TestReadRoundTrips: a cold read of a small inline key is one GET, the
// manifest's; a warm read revalidates the manifest (one conditional GET
// that transfers nothing). With inline values off, a cold read is two
// GETs (manifest, version) and a warm one serves the immutable version
// from memory; a changed manifest is fetched again.
func TestReadRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		name              string
		opts              *objstore.Options
		cold, warm, after int64
	}{{"inline", nil, 1, 1, 1}, {"versions", versionsOnly, 2, 1, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			mem := memstore.New()
			fb := faulty.New(mem)
			w := objstore.New(fb, tc.opts)
			r := objstore.New(fb, tc.opts)
			if _, err := w.Put(ctx, "d", "k", 1, strings.NewReader("one"), 3); err != nil {
				t.Fatal(err)
			}
			read := func(want string) int64 {
				t.Helper()
				before := fb.Calls(faulty.OpGet)
				got, _, err := r.ReadAll(ctx, "d", "k")
				if err != nil || string(got) != want {
					t.Fatalf("read = %q, %v; want %q", got, err, want)
				}
				return fb.Calls(faulty.OpGet) - before
			}
			if n := read("one"); n != tc.cold {
				t.Fatalf("cold read made %d GETs, want %d", n, tc.cold)
			}
			if n := read("one"); n != tc.warm {
				t.Fatalf("warm read made %d GETs, want %d (manifest revalidation)", n, tc.warm)
			}
			if _, err := w.Put(ctx, "d", "k", 1, strings.NewReader("two"), 3); err != nil {
				t.Fatal(err)
			}
			if n := read("two"); n != tc.after {
				t.Fatalf("read after a commit made %d GETs, want %d", n, tc.after)
			}
			if tc.opts == nil {
				return
			}
			// Tampering with a cached version is invisible to this reader
			// (its bytes were verified when first read) but not to a
			// fresh one.
			m, _ := format.ReadManifest(ctx, w.Backend(), "d")
			mem.Corrupt(m.Keys["k"].Version, []byte("evil"))
			if n := read("two"); n != 1 {
				t.Fatalf("warm read made %d GETs", n)
			}
			fresh := objstore.New(mem, tc.opts)
			if _, _, err := fresh.ReadAll(ctx, "d", "k"); !errors.Is(err, objstore.ErrIntegrity) {
				t.Fatalf("fresh read of a tampered version: %v, want ErrIntegrity", err)
			}
		})
	}
}

// TestFirstCommitsRaceAtOneToken: two writers create a new domain at the
// same token at once; the one whose creating write loses goes on and
// commits on top of the other's manifest (a data commit claims no token).
func TestFirstCommitsRaceAtOneToken(t *testing.T) {
	ctx := context.Background()
	mem := faulty.New(memstore.New())
	a := objstore.New(mem, &objstore.Options{SkipProbe: true})
	b := objstore.New(mem, &objstore.Options{SkipProbe: true})
	creating, proceed := make(chan struct{}), make(chan struct{})
	mem.Add(faulty.Rule{Op: faulty.OpPut, Key: format.ManifestKey("d"), Mode: driver.Create{}, Func: func(context.Context, faulty.Call) faulty.Fault {
		close(creating)
		return faulty.Fault{Pause: proceed}
	}})
	done := make(chan error, 1)
	go func() {
		_, err := a.Put(ctx, "d", "a", 1, strings.NewReader("A"), 1)
		done <- err
	}()
	<-creating // A is about to create the manifest
	if _, err := b.Put(ctx, "d", "b", 1, strings.NewReader("B"), 1); err != nil {
		t.Fatal(err)
	}
	close(proceed)
	if err := <-done; err != nil {
		t.Fatalf("A's first commit, whose creating write lost to B's: %v", err)
	}
	for k, want := range map[string]string{"a": "A", "b": "B"} {
		if got, _, err := b.ReadAll(ctx, "d", k); err != nil || string(got) != want {
			t.Fatalf("read %s = %q, %v; want %q", k, got, err, want)
		}
	}
}

// TestStaleWriterFailsBeforeUploading: a holder whose cached manifest is
// stale (another holder has fenced the domain since) learns that it is
// fenced while it uploads a large body, from one conditional manifest
// read beside the upload, which it cuts short: the version PUTs here
// never finish on their own, so only that read ends them. A small
// commit, and one of unknown size that turns out small, still trusts the
// cache: no read at all (its one conditional write is the check).
func TestStaleWriterFailsBeforeUploading(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mem := faulty.New(memstore.New())
	old := objstore.New(mem, nil)
	if _, err := old.Put(ctx, "d", "k", 1, strings.NewReader("x"), 1); err != nil {
		t.Fatal(err)
	}
	gets := mem.Calls(faulty.OpGet)
	if _, err := old.Put(ctx, "d", "k", 1, strings.NewReader("small, size unknown"), -1); err != nil {
		t.Fatal(err)
	}
	if n := mem.Calls(faulty.OpGet) - gets; n != 0 {
		t.Fatalf("a small put of unknown size made %d gets, want 0", n)
	}
	if _, err := objstore.New(mem.Unwrap(), nil).Fence(ctx, "d", 2); err != nil {
		t.Fatal(err)
	}
	mem.Add(faulty.Rule{
		Op:    faulty.OpPut,
		Match: func(c faulty.Call) bool { return strings.Contains(c.Key, "/_fence/v/") },
		Every: true,
		Func:  func(ctx context.Context, _ faulty.Call) faulty.Fault { return faulty.Fault{Pause: ctx.Done()} },
	})
	for _, size := range []int64{9 << 20, -1} {
		body := io.LimitReader(zeros{}, 9<<20)
		_, err := old.Put(ctx, "d", "big", 1, body, size)
		if !errors.Is(err, objstore.ErrFenced) {
			t.Fatalf("size %d: stale writer's large put: %v, want fenced", size, err)
		}
		if ctx.Err() != nil {
			t.Fatalf("size %d: the upload ran until the test's deadline", size)
		}
	}
	for _, k := range mem.Unwrap().(*memstore.Backend).Keys() {
		if strings.Contains(k, "/_fence/v/big@") {
			t.Fatalf("the fenced writer stored version %q", k)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
