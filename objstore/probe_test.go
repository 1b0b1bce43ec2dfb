package objstore_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/observe"
)

// ignoring drops some conditional headers, as some proxies do.
type ignoring struct {
	driver.Backend
	dropIfNoneMatch, dropIfMatch bool
}

func (b ignoring) Put(ctx context.Context, key string, r io.Reader, size int64, o driver.PutOptions) (driver.ObjectInfo, error) {
	switch o.Mode.(type) {
	case driver.Create:
		if b.dropIfNoneMatch {
			o.Mode = nil
		}
	case driver.Update:
		if b.dropIfMatch {
			o.Mode = nil
		}
	}
	return b.Backend.Put(ctx, key, r, size, o)
}

func TestProbeRefusesStoreIgnoringConditions(t *testing.T) {
	for name, b := range map[string]ignoring{
		"IfNoneMatch": {dropIfNoneMatch: true},
		"IfMatch":     {dropIfMatch: true},
		"Both":        {dropIfNoneMatch: true, dropIfMatch: true},
	} {
		t.Run(name, func(t *testing.T) {
			mem := memstore.New()
			b.Backend = mem
			s := objstore.New(b, nil)
			_, err := s.Put(context.Background(), "d", "k", 1, strings.NewReader("x"), 1)
			if !errors.Is(err, objstore.ErrUnsafeStore) {
				t.Fatalf("err = %v, want ErrUnsafeStore", err)
			}
			if keys := mem.Keys(); len(keys) != 0 {
				t.Fatalf("refused store was written to: %v", keys)
			}
			// Opting out writes (and is only for stores known to be safe).
			s = objstore.New(b, &objstore.Options{SkipProbe: true})
			if _, err := s.Put(context.Background(), "d", "k", 1, strings.NewReader("x"), 1); err != nil {
				t.Fatalf("with SkipProbe: %v", err)
			}
		})
	}
}

func TestProbePassesAndIsCachedPerStore(t *testing.T) {
	mem := memstore.New()
	fb := faulty.New(mem)
	s := objstore.New(fb, nil)
	for i := range 3 {
		if _, err := s.Put(context.Background(), "d", "k", 1, strings.NewReader("x"), 1); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
	}
	// The probe's puts once (its concurrent creates, then 3 more; a
	// memory store has no multipart path), then per commit: the domain's
	// first manifest (a fence) + its floor marker + 1 manifest carrying
	// the value inline, or 1.
	if want := driver.ProbeRacers + 3 + 3 + 1 + 1; fb.Calls(faulty.OpPut) != int64(want) {
		t.Fatalf("%d puts, want %d (probe once, then 1, or 3 for the first commit, per commit)", fb.Calls(faulty.OpPut), want)
	}
	for _, k := range mem.Keys() {
		if strings.HasPrefix(k, "_fence/probe/") {
			t.Fatalf("probe object %q left behind", k)
		}
	}
}

// Collect writes (the floor marker) and deletes, so it probes too.
func TestCollectProbes(t *testing.T) {
	b := ignoring{Backend: memstore.New(), dropIfNoneMatch: true}
	ctx := context.Background()
	if _, err := objstore.New(b, &objstore.Options{SkipProbe: true}).Put(ctx, "d", "k", 1, strings.NewReader("x"), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := objstore.New(b, nil).Collect(ctx, "d", 0); !errors.Is(err, objstore.ErrUnsafeStore) {
		t.Fatalf("Collect over a store that ignores conditional writes: %v, want ErrUnsafeStore", err)
	}
}

// multipartMem is a memory store with a multipart path (PutMultipart is
// its Put), under a location of its own.
type multipartMem struct {
	*memstore.Backend
	name string
}

func (b multipartMem) PutMultipart(ctx context.Context, key string, r io.Reader, size int64, o driver.PutOptions) (driver.ObjectInfo, error) {
	return b.Put(ctx, key, r, size, o)
}

func (b multipartMem) Location() string { return "multipart-mem://" + b.name }

// The wrappers between a Store and its backend (the Observer's, faulty)
// keep the probe's multipart check: a Store over a backend that ignores
// the precondition on CompleteMultipartUpload alone is refused through
// them too.
func TestProbeMultipartThroughWrappers(t *testing.T) {
	for name, wrap := range map[string]func(driver.Backend) (driver.Backend, *objstore.Options){
		"Observer": func(b driver.Backend) (driver.Backend, *objstore.Options) {
			return b, &objstore.Options{Observer: observe.Nop{}}
		},
		"faulty": func(b driver.Backend) (driver.Backend, *objstore.Options) { return faulty.New(b), nil },
	} {
		t.Run(name, func(t *testing.T) {
			mem := memstore.New()
			b, opts := wrap(drivertest.IgnoreConditionsOnComplete(multipartMem{mem, t.Name()}, 1<<20))
			_, err := objstore.New(b, opts).Put(t.Context(), "d", "k", 1, strings.NewReader("x"), 1)
			if !errors.Is(err, objstore.ErrUnsafeStore) || !strings.Contains(err.Error(), "CompleteMultipartUpload") {
				t.Fatalf("Put: %v, want ErrUnsafeStore naming CompleteMultipartUpload", err)
			}
			if keys := mem.Keys(); len(keys) != 0 {
				t.Fatalf("a refused store was written to: %q", keys)
			}
		})
	}
}

// sseMem is a memory store whose writes ask for AES256, under a location
// of its own; stored says what the store reports them stored with.
type sseMem struct {
	*memstore.Backend
	name, stored string
}

func (b sseMem) Location() string      { return "sse-mem://" + b.name }
func (b sseMem) SSE() (string, string) { return "AES256", "" }
func (b sseMem) StoredSSE(ctx context.Context, key string) (string, string, error) {
	if _, err := b.Head(ctx, key); err != nil {
		return "", "", err
	}
	return b.stored, "", nil
}

// A Store whose location asks for server-side encryption refuses to
// write to a store that reports its objects stored in plaintext
// (versitygw's POSIX backend), before anything is written, directly and
// through the wrappers; one that reports the encryption is written to.
func TestProbeRefusesPlaintextUnderSSE(t *testing.T) {
	wraps := map[string]func(driver.Backend) (driver.Backend, *objstore.Options){
		"direct": func(b driver.Backend) (driver.Backend, *objstore.Options) { return b, nil },
		"Observer": func(b driver.Backend) (driver.Backend, *objstore.Options) {
			return b, &objstore.Options{Observer: observe.Nop{}}
		},
		"faulty": func(b driver.Backend) (driver.Backend, *objstore.Options) { return faulty.New(b), nil },
	}
	for name, wrap := range wraps {
		t.Run(name, func(t *testing.T) {
			mem := memstore.New()
			b, opts := wrap(sseMem{mem, t.Name(), ""})
			_, err := objstore.New(b, opts).Put(t.Context(), "d", "k", 1, strings.NewReader("x"), 1)
			if !errors.Is(err, objstore.ErrEncryptionIgnored) || !strings.Contains(err.Error(), "plaintext") {
				t.Fatalf("Put: %v, want ErrEncryptionIgnored saying the objects would be stored in plaintext", err)
			}
			if keys := mem.Keys(); len(keys) != 0 {
				t.Fatalf("a refused store was written to: %q", keys)
			}

			b, opts = wrap(sseMem{memstore.New(), t.Name() + "-honoured", "AES256"})
			s := objstore.New(b, opts)
			if _, err := s.Put(t.Context(), "d", "k", 1, strings.NewReader("x"), 1); err != nil {
				t.Fatalf("Put to a store that encrypts: %v", err)
			}
		})
	}
}
