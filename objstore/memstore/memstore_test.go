package memstore_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/memstore"
)

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
	if got := drivertest.ReadString(t, b, "k"); got != "original" {
		t.Fatalf("stored content changed with the caller's buffer: %q", got)
	}
	b.Corrupt("c", data)
	data[0] = 'Y'
	if got := drivertest.ReadString(t, b, "c"); got != "XXXXXXXX" {
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

// A call whose context has ended applies nothing. (Faults that delay or
// pause a call are driver/faulty's; see its tests.)
func TestEndedContextAppliesNothing(t *testing.T) {
	b := memstore.New()
	if _, err := putString(t.Context(), b, "d", "x", driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := putString(ctx, b, "k", "x", driver.PutOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put: error = %v, want context.Canceled", err)
	}
	if err := b.Delete(ctx, "d"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Delete: error = %v, want context.Canceled", err)
	}
	if got := b.Keys(); !slices.Equal(got, []string{"d"}) {
		t.Fatalf("Keys() = %q; nothing should be applied", got)
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
