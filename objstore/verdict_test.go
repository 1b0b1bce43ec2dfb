package objstore_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// verdicts is a driver.VerdictCache in memory.
type verdicts struct {
	mu sync.Mutex
	m  map[string]bool
}

func (v *verdicts) Passed(key string) bool { v.mu.Lock(); defer v.mu.Unlock(); return v.m[key] }
func (v *verdicts) Pass(key string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = map[string]bool{}
	}
	v.m[key] = true
	return nil
}
func (v *verdicts) Forget(key string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.m, key)
	return nil
}

// A manifest write answered with something the probe never saw the
// store answer (neither success nor 412 nor 409) drops the cached
// verdict, so the next process probes again; the commit itself settles
// by reading back, as before.
func TestAmbiguousManifestWriteForgetsCachedVerdict(t *testing.T) {
	ctx := context.Background()
	fb := faulty.New(memstore.New())
	cache := &verdicts{}
	s := objstore.New(fb, &objstore.Options{ProbeCache: cache})
	if _, err := s.Put(ctx, "d", "k", 1, strings.NewReader("a"), 1); err != nil {
		t.Fatal(err)
	}
	key := driver.VerdictKey(fb)
	if !cache.Passed(key) {
		t.Fatal("the probe's verdict was not recorded")
	}
	// A 412 is an answer the probe saw: the verdict stays.
	fb.Add(faulty.FailNext(faulty.OpPut, faulty.Manifest("d"), driver.ErrPreconditionFailed))
	if _, err := s.Put(ctx, "d", "k", 1, strings.NewReader("b"), 1); err != nil {
		t.Fatal(err)
	}
	if !cache.Passed(key) {
		t.Fatal("a 412 dropped the verdict")
	}
	fb.Add(faulty.FailNext(faulty.OpPut, faulty.Manifest("d"), errors.New("501 NotImplemented: If-Match")))
	if _, err := s.Put(ctx, "d", "k", 1, strings.NewReader("c"), 1); err != nil {
		t.Fatal(err)
	}
	if cache.Passed(key) {
		t.Fatal("an answer the probe never saw left the cached verdict")
	}
}
