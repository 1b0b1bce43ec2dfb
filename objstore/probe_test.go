package objstore_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
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
	// 4 probe puts once, then per commit: the domain's first manifest (a
	// fence) + its floor marker + 1 manifest carrying the value inline,
	// or 1.
	if got := fb.Calls(faulty.OpPut); got != 4+3+1+1 {
		t.Fatalf("%d puts, want %d (probe once, then 1, or 3 for the first commit, per commit)", got, 4+3+1+1)
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
