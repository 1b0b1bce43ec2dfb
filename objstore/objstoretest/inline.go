package objstoretest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// tamper replaces the bytes of version v of domain with data behind the
// Store's back: the version object's, or for an inline value the
// manifest's copy (data of the same length, so that only SHA-256 tells).
func tamper(t *testing.T, b driver.Backend, domain string, v objstore.Version, data string) {
	t.Helper()
	ctx := tctx(t)
	if !v.Inline {
		if _, err := b.Put(ctx, v.Object, strings.NewReader(data), int64(len(data)), driver.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		return
	}
	m, err := format.ReadManifest(ctx, b, domain)
	if err != nil {
		t.Fatal(err)
	}
	e := m.Keys[v.Key]
	if len(data) != len(e.Data) {
		t.Fatalf("tamper: %d bytes for an inline value of %d", len(data), len(e.Data))
	}
	e.Data = []byte(data)
	m.Keys[v.Key] = e
	enc, err := format.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, format.ManifestKey(domain), strings.NewReader(string(enc)), int64(len(enc)), driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
}

// inlineOnly skips a case in the VersionsOnly mode.
func inlineOnly(t *testing.T) {
	t.Helper()
	if inlineMax < 0 {
		t.Skip("inline values are off in this mode")
	}
}

// testInlineValues: a commit of small values is one manifest write that
// carries them; a value over the limit, or of unknown size and larger,
// is a version object; every one reads back, from a fresh store too.
func testInlineValues(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	inlineOnly(t)
	ctx := tctx(t)
	commitPut(t, s, "d", "warm", 1, "w")
	puts := f.Calls(faulty.OpPut)
	small := strings.Repeat("s", 4096)
	c, err := s.Commit(ctx, "d", 1, []objstore.Change{
		objstore.PutBytes("a", []byte("alpha")),
		objstore.PutBytes("b", []byte(small)),
		objstore.PutReader("c", strings.NewReader("unknown size"), -1),
		objstore.PutBytes("empty", nil),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Calls(faulty.OpPut) - puts; n != 1 {
		t.Fatalf("a commit of four small values made %d puts, want 1 (the manifest)", n)
	}
	for _, v := range c.Versions {
		if !v.Inline {
			t.Fatalf("version %+v of a small value is not inline", v)
		}
	}
	big := strings.Repeat("B", 4097)
	c, err = s.Commit(ctx, "d", 1, []objstore.Change{
		objstore.PutBytes("big", []byte(big)),
		objstore.PutReader("bigstream", strings.NewReader(big), -1),
		objstore.PutReader("bigpipe", struct{ *strings.Reader }{strings.NewReader(big)}, -1), // not a Seeker
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range c.Versions {
		if v.Inline {
			t.Fatalf("version %+v of a %d-byte value is inline", v, len(big))
		}
		if _, err := f.Unwrap().Head(ctx, v.Object); err != nil {
			t.Fatalf("version object of %s: %v", v.Key, err)
		}
	}
	fresh := newStore(f.Unwrap(), &objstore.Options{VersionCacheBytes: -1})
	for k, want := range map[string]string{"a": "alpha", "b": small, "c": "unknown size", "empty": "", "big": big, "bigstream": big, "bigpipe": big} {
		mustRead(t, fresh, "d", k, want)
	}
	// A body longer than declared fails, and nothing is published.
	if _, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutReader("a", strings.NewReader("longer"), 3)}, nil); err == nil {
		t.Fatal("a body longer than its declared size was committed")
	}
	mustRead(t, fresh, "d", "a", "alpha")
	m, err := format.ReadManifest(ctx, f.Unwrap(), "d")
	if err != nil || m.Format != format.ManifestV3 {
		t.Fatalf("manifest with inline values: %v, format %q", err, m.Format)
	}
}

// testInlineSpilled: inline values past the budget move into packs, each
// entry naming its pack and offset; two stores that spill the same value
// at once both succeed; the collector deletes a pack once every value in
// it is superseded, and none before.
func testInlineSpilled(t *testing.T, _ *objstore.Store, f *faulty.Backend) {
	inlineOnly(t)
	ctx := tctx(t)
	a := newStore(f, &objstore.Options{Holder: "a", InlineBudget: 100})
	b := newStore(f.Unwrap(), &objstore.Options{Holder: "b", InlineBudget: 100})
	model := map[string]string{}
	for i := range 12 {
		k, v := fmt.Sprintf("k%02d", i), fmt.Sprintf("value %02d of twenty bytes", i)
		st := a
		if i%2 == 1 {
			st = b
		}
		commitPut(t, st, "d", k, 1, v)
		model[k] = v
	}
	m, err := format.ReadManifest(ctx, f.Unwrap(), "d")
	if err != nil {
		t.Fatal(err)
	}
	if n := m.InlineBytes(); n > 100 {
		t.Fatalf("manifest holds %d inline bytes, budget 100", n)
	}
	packs := map[string]bool{}
	for k, e := range m.Keys {
		if e.Inline {
			continue
		}
		if e.Pack == "" {
			t.Fatalf("spilled value of %s: %+v names no pack", k, e)
		}
		if packs[e.Pack] {
			continue
		}
		packs[e.Pack] = true
		if _, err := f.Unwrap().Head(ctx, e.Pack); err != nil {
			t.Fatalf("spilled value of %s: pack %q: %v", k, e.Pack, err)
		}
	}
	if len(packs) == 0 {
		t.Fatal("no inline value was spilled past the budget")
	}
	if m.Format != format.ManifestV4 {
		t.Fatalf("a manifest naming packs is format %s, want %s", m.Format, format.ManifestV4)
	}
	fresh := newStore(f.Unwrap(), &objstore.Options{VersionCacheBytes: -1})
	for k, v := range model {
		mustRead(t, fresh, "d", k, v)
	}
	// Packs written by the attempts that lost a race, which no manifest
	// names, may go; the named ones stay.
	if res, err := fresh.Collect(ctx, "d", 0); err != nil || res.Live < len(packs) {
		t.Fatalf("collect with every value current: %+v, %v; want the %d named packs live", res, err, len(packs))
	}
	for p := range packs {
		if _, err := f.Unwrap().Head(ctx, p); err != nil {
			t.Fatalf("named pack %q after collect: %v", p, err)
		}
	}
	for k, v := range model {
		mustRead(t, fresh, "d", k, v)
	}
	// Supersede every key: the spilled objects are garbage now.
	for k := range model {
		commitPut(t, a, "d", k, 2, "new "+k)
		model[k] = "new " + k
	}
	res, err := fresh.Collect(ctx, "d", 0)
	if err != nil || res.Deleted < len(packs) {
		t.Fatalf("collect after superseding the values of %d packs: %+v, %v", len(packs), res, err)
	}
	for p := range packs {
		if _, err := f.Unwrap().Head(ctx, p); !errors.Is(err, driver.ErrNotFound) {
			t.Fatalf("pack %q of superseded values after collect: %v", p, err)
		}
	}
	for k, v := range model {
		mustRead(t, fresh, "d", k, v)
	}
}

// testInlineFold: a domain that outgrows the overlay folds it into
// shards, which hold no inline value: they are moved into a pack first,
// and every key reads back.
func testInlineFold(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	inlineOnly(t)
	ctx := tctx(t)
	model := map[string]string{}
	var changes []objstore.Change
	for i := range format.OverlayLimit + 10 {
		k := fmt.Sprintf("k%04d", i)
		changes = append(changes, objstore.PutBytes(k, []byte(k)))
		model[k] = k
	}
	changes = append(changes, objstore.PutBytes("empty", nil))
	model["empty"] = ""
	if _, err := s.Commit(ctx, "d", 1, changes, nil); err != nil {
		t.Fatal(err)
	}
	commitPut(t, s, "d", "after", 1, "after the fold")
	model["after"] = "after the fold"
	m, err := format.ReadManifest(ctx, f.Unwrap(), "d")
	if err != nil || len(m.Shards) == 0 {
		t.Fatalf("after %d keys: %v, %d shards", len(changes), err, len(m.Shards))
	}
	if e := m.Keys["after"]; !e.Inline || m.Format != format.ManifestV4 {
		t.Fatalf("the commit after the fold: entry %+v in a %s manifest; want inline, v4 (its shards hold packed values)", e, m.Format)
	}
	fresh := newStore(f.Unwrap(), &objstore.Options{VersionCacheBytes: -1})
	for k, v := range model {
		mustRead(t, fresh, "d", k, v)
	}
	// Ranges of packed values, and an empty one, read from the pack.
	sn, err := fresh.Snapshot(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"k0007": "00", "k0100": "010", "k0255": "", "empty": ""} {
		v, err := sn.Version(ctx, k)
		if err != nil || v.Pack == "" {
			t.Fatalf("version of %s: %+v, %v; want it in a pack", k, v, err)
		}
		off := int64(min(1, len(model[k])))
		rc, err := sn.NewRangeReader(ctx, k, off, int64(len(want)))
		if err != nil {
			t.Fatalf("range of %s: %v", k, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(got) != want {
			t.Fatalf("range [%d, +%d) of %s: %q, %v; want %q", off, len(want), k, got, err, want)
		}
	}
}

// testGCBesideSpill: a commit that spilled a value and then lost its
// manifest write to a commit that superseded the value, while the
// collector deleted the spilled object, decides again on the newer
// manifest and publishes nothing that names the deleted object.
func testGCBesideSpill(t *testing.T, _ *objstore.Store, f *faulty.Backend) {
	inlineOnly(t)
	ctx := tctx(t)
	a := newStore(f, &objstore.Options{Holder: "a", InlineBudget: 30})
	other := newStore(f.Unwrap(), &objstore.Options{Holder: "other", InlineBudget: 1 << 20})
	commitPut(t, a, "d", "old", 1, "twenty bytes of data")
	paused, gate := make(chan struct{}), make(chan struct{})
	f.Add(faulty.Rule{Op: faulty.OpPut, Key: format.ManifestKey("d"), Func: func(context.Context, faulty.Call) faulty.Fault {
		close(paused)
		return faulty.Fault{Pause: gate}
	}})
	done := make(chan error, 1)
	go func() {
		// Passes the budget: spills "old" before its manifest write.
		_, err := a.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("new", []byte("another twenty bytes"))}, nil)
		done <- err
	}()
	<-paused
	var obj string
	if err := f.Unwrap().List(ctx, format.PackPrefix("d"), func(o driver.ObjectInfo) error {
		obj = o.Key
		return nil
	}); err != nil || obj == "" {
		t.Fatalf("the pack the paused commit wrote: %q, %v", obj, err)
	}
	commitPut(t, other, "d", "old", 2, "superseded")
	if res, err := other.Collect(ctx, "d", 0); err != nil || res.Deleted == 0 {
		t.Fatalf("collect of the superseded spilled object: %+v, %v", res, err)
	}
	if _, err := f.Unwrap().Head(ctx, obj); !errors.Is(err, driver.ErrNotFound) {
		t.Fatalf("pack of a superseded value, named by no manifest, after collect: %v", err)
	}
	close(gate)
	err := <-done
	wantFenced(t, err, 1, 2)
	fresh := newStore(f.Unwrap(), &objstore.Options{VersionCacheBytes: -1})
	mustRead(t, fresh, "d", "old", "superseded")
	if _, _, err := fresh.ReadAll(ctx, "d", "new"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("the fenced commit's key: %v, want not found", err)
	}
}
