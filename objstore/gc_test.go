package objstore_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

func versionObjects(t *testing.T, mem *memstore.Backend, domain string) []string {
	t.Helper()
	var out []string
	for _, k := range mem.Keys() {
		if strings.HasPrefix(k, format.VersionPrefix(domain)) {
			out = append(out, k)
		}
	}
	return out
}

// TestCollect: superseded and orphaned versions go once the grace period
// has passed; live versions and recent ones stay.
func TestCollect(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	now := time.Now()
	clock := func() time.Time { return now }
	s := objstore.New(mem, &objstore.Options{Now: clock, InlineMax: -1})
	put := func(key string, token uint64) objstore.CommitResult {
		c, err := s.Put(ctx, "d", key, token, strings.NewReader(key), -1)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	put("a", 1)
	put("a", 2) // supersedes a@1
	put("b", 2)
	if _, err := s.Delete(ctx, "d", "b", 2); err != nil {
		t.Fatal(err)
	}
	// A stale writer's orphan: uploaded, never published.
	if _, err := s.Put(ctx, "d", "a", 1, strings.NewReader("late"), -1); !errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("stale put: %v", err)
	}
	live := put("c", 2).Versions[0].Object

	// Inside the grace period nothing goes: a reader may hold the old
	// manifest. (memstore stamps objects with the wall clock.)
	res, err := s.Collect(ctx, "d", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 0 {
		t.Fatalf("collected %d versions inside the grace period", res.Deleted)
	}
	before := versionObjects(t, mem, "d")

	now = now.Add(2 * time.Hour)
	res, err = s.Collect(ctx, "d", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	after := versionObjects(t, mem, "d")
	m, _ := format.ReadManifest(ctx, s.Backend(), "d")
	if len(after) != len(m.Keys) || res.Live != len(m.Keys) {
		t.Fatalf("after collecting, %d versions remain (%v) for %d live keys; result %+v", len(after), after, len(m.Keys), res)
	}
	for _, e := range m.Keys {
		if !slices.Contains(after, e.Version) {
			t.Fatalf("live version %s was collected", e.Version)
		}
	}
	if !slices.Contains(after, live) || res.Deleted != len(before)-len(after) {
		t.Fatalf("result %+v, before %d, after %d", res, len(before), len(after))
	}
	// Every key still reads.
	for _, k := range []string{"a", "c"} {
		if _, _, err := s.ReadAll(ctx, "d", k); err != nil {
			t.Fatalf("read %s after collecting: %v", k, err)
		}
	}
}
