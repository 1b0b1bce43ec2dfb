package objstore_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

// TestMissingVersionIsDataLoss: a version the current manifest names,
// deleted behind fence's back, is reported by every read as
// *DataLossError naming the key, the object and the seq, never as
// ErrNotFound, which would read as "no such key" while List shows it.
func TestMissingVersionIsDataLoss(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	res, err := objstore.New(mem, versionsOnly).Put(ctx, "d", "k", 1, strings.NewReader("bytes"), 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.Delete(ctx, res.Versions[0].Object); err != nil {
		t.Fatal(err)
	}
	s := objstore.New(mem, versionsOnly) // nothing cached
	for name, read := range map[string]func() error{
		"Get":     func() error { _, err := s.Get(ctx, "d", "k"); return err },
		"ReadAll": func() error { _, _, err := s.ReadAll(ctx, "d", "k"); return err },
		"NewRangeReader": func() error {
			rc, err := s.NewRangeReader(ctx, "d", "k", 1, 2)
			if err == nil {
				_, err = io.ReadAll(rc)
			}
			return err
		},
	} {
		err := read()
		var de *objstore.DataLossError
		switch {
		case !errors.Is(err, objstore.ErrDataLoss) || !errors.As(err, &de):
			t.Fatalf("%s: err = %v, want *DataLossError", name, err)
		case errors.Is(err, objstore.ErrNotFound):
			t.Fatalf("%s: err = %v matches ErrNotFound", name, err)
		case de.Domain != "d" || de.Key != "k" || de.Version != res.Versions[0].Object || de.Seq != res.Seq:
			t.Fatalf("%s: %+v, want domain d, key k, version %q, seq %d", name, de, res.Versions[0].Object, res.Seq)
		case !strings.Contains(err.Error(), res.Versions[0].Object) || !strings.Contains(err.Error(), "restore"):
			t.Fatalf("%s: %v: want the object and the next step named", name, err)
		}
	}
	if vs, err := s.List(ctx, "d", nil); err != nil || len(vs) != 1 {
		t.Fatalf("List = %v, %v: the key is still live", vs, err)
	}
}

// TestCollectedVersionOfOldSnapshotIsNotDataLoss: a snapshot's version
// that gc collected after the key moved on is not data loss: the error
// says the key changed since and to read again.
func TestCollectedVersionOfOldSnapshotIsNotDataLoss(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	w := objstore.New(mem, versionsOnly)
	old, err := w.Put(ctx, "d", "k", 1, strings.NewReader("old"), 3)
	if err != nil {
		t.Fatal(err)
	}
	r := objstore.New(mem, versionsOnly)
	sn, err := r.Snapshot(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Put(ctx, "d", "k", 1, strings.NewReader("new"), 3); err != nil {
		t.Fatal(err)
	}
	if err := mem.Delete(ctx, old.Versions[0].Object); err != nil { // as gc would
		t.Fatal(err)
	}
	_, _, err = sn.ReadAll(ctx, "k")
	if !errors.Is(err, objstore.ErrNotFound) || errors.Is(err, objstore.ErrDataLoss) || !strings.Contains(err.Error(), "newer snapshot") {
		t.Fatalf("err = %v, want ErrNotFound (superseded, not data loss), saying to read from a newer snapshot", err)
	}
}

// TestCorruptManifestNamesNextStep: a corrupt manifest's error names the
// object and what the operator does next.
func TestCorruptManifestNamesNextStep(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	if _, err := objstore.New(mem, versionsOnly).Put(ctx, "d", "k", 1, strings.NewReader("x"), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Put(ctx, "d/_fence/manifest.json", strings.NewReader("{"), 1, driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _, err := objstore.New(mem, versionsOnly).ReadAll(ctx, "d", "k")
	if !errors.Is(err, objstore.ErrCorruptManifest) || !strings.Contains(err.Error(), `"d/_fence/manifest.json"`) || !strings.Contains(err.Error(), "restore the object from a backup") {
		t.Fatalf("err = %v, want the object and the next step named", err)
	}
}
