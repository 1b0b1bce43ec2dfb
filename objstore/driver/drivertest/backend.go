// Package drivertest holds the conformance suites every driver.Backend
// passes. A backend's package test runs them in a few lines:
//
//	func TestConformance(t *testing.T) {
//		drivertest.Run(t, func(t *testing.T) driver.Backend {
//			return memstore.New()
//		})
//	}
//
// The fencing suites, which run a Store over the backend, are in
// objstoretest.
package drivertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// Run runs the backend conformance suite. It calls newBackend once
// per subtest and closes the backend when the subtest ends; newBackend
// should register any other cleanup (a throwaway bucket, a temporary
// directory) with t.Cleanup.
//
// The suite uses only the driver.Backend interface and its documented
// behaviour: ETags are opaque, an Update of a missing key fails with
// ErrPreconditionFailed, and a racing conditional write may lose with
// ErrConflict as well as ErrPreconditionFailed. Beyond the
// interface it requires that a call with a cancelled context fails with an
// error matching context.Canceled and applies nothing.
//
// Every subtest writes only under its own random prefix and deletes what
// it wrote, so the backend need not be empty and may be shared.
func Run(t *testing.T, newBackend func(t *testing.T) driver.Backend) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(*backendCase)
	}{
		{"RoundTrip", (*backendCase).roundTrip},
		{"EmptyObject", (*backendCase).emptyObject},
		{"LargeObject", (*backendCase).largeObject},
		{"NotFound", (*backendCase).notFound},
		{"IfNoneMatchExisting", (*backendCase).ifNoneMatchExisting},
		{"IfMatchStale", (*backendCase).ifMatchStale},
		{"IfMatchMissing", (*backendCase).ifMatchMissing},
		{"IfMatchCurrent", (*backendCase).ifMatchCurrent},
		{"ETagChanges", (*backendCase).etagChanges},
		{"Delete", (*backendCase).delete},
		{"List", (*backendCase).list},
		{"ListStops", (*backendCase).listStops},
		{"KeyShapes", (*backendCase).keyShapes},
		{"RaceIfMatch", (*backendCase).raceIfMatch},
		{"RaceIfNoneMatch", (*backendCase).raceIfNoneMatch},
		{"CancelledContext", (*backendCase).cancelledContext},
		{"ConditionalGet", (*backendCase).conditionalGet},
		{"RangedGet", (*backendCase).rangedGet},
		{"Metadata", (*backendCase).metadata},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &backendCase{t: t, b: newBackend(t)}
			c.p = c.newPrefix()
			t.Cleanup(func() {
				c.cleanup()
				if err := c.b.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(c)
		})
	}
}

// backendCase is one subtest of Run: a backend and the prefix
// under which the subtest writes.
type backendCase struct {
	t *testing.T
	b driver.Backend
	p string // ends in "/"
}

// newPrefix returns a fresh key prefix ending in "/".
func (c *backendCase) newPrefix() string {
	var r [6]byte
	if _, err := rand.Read(r[:]); err != nil {
		c.t.Fatal(err)
	}
	return "drivertest-" + hex.EncodeToString(r[:]) + "/"
}

// cleanup deletes everything under the prefix, best effort.
func (c *backendCase) cleanup() {
	t, b, p := c.t, c.b, c.p
	ctx := context.WithoutCancel(t.Context())
	var keys []string
	if err := b.List(ctx, p, func(o driver.ObjectInfo) error {
		keys = append(keys, o.Key)
		return nil
	}); err != nil {
		t.Logf("cleanup: List(%q): %v", p, err)
		return
	}
	for _, k := range keys {
		if err := b.Delete(ctx, k); err != nil {
			t.Logf("cleanup: Delete(%q): %v", k, err)
		}
	}
}

func (c *backendCase) put(key string, data []byte, opts driver.PutOptions) driver.ObjectInfo {
	t, b := c.t, c.b
	t.Helper()
	info, err := b.Put(t.Context(), key, bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatalf("Put(%q, %+v): %v", key, opts, err)
	}
	if info.ETag == "" {
		t.Fatalf("Put(%q) returned an empty ETag", key)
	}
	return info
}

// mustContain checks that key holds want and that Get's and Head's
// metadata agree with it. It returns the current ETag.
func (c *backendCase) mustContain(key string, want []byte) string {
	t, b := c.t, c.b
	t.Helper()
	rc, info, err := b.Get(t.Context(), key, driver.GetOptions{})
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatalf("Get(%q): reading: %v", key, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Get(%q) = %s, want %s", key, backendAbbrev(got), backendAbbrev(want))
	}
	c.checkInfo("Get", key, info, int64(len(want)))
	head, err := b.Head(t.Context(), key)
	if err != nil {
		t.Fatalf("Head(%q): %v", key, err)
	}
	c.checkInfo("Head", key, head, int64(len(want)))
	if head.ETag != info.ETag {
		t.Fatalf("Head(%q).ETag = %q, Get's = %q", key, head.ETag, info.ETag)
	}
	return head.ETag
}

func (c *backendCase) checkInfo(op, key string, info driver.ObjectInfo, size int64) {
	t := c.t
	t.Helper()
	if info.Key != "" && info.Key != key {
		t.Fatalf("%s(%q).Key = %q", op, key, info.Key)
	}
	if info.Size != size {
		t.Fatalf("%s(%q).Size = %d, want %d", op, key, info.Size, size)
	}
	if info.ETag == "" {
		t.Fatalf("%s(%q) returned an empty ETag", op, key)
	}
}

func (c *backendCase) mustNotExist(key string) {
	t, b := c.t, c.b
	t.Helper()
	if info, err := b.Head(t.Context(), key); !errors.Is(err, driver.ErrNotFound) {
		t.Fatalf("Head(%q) = %+v, %v; want ErrNotFound", key, info, err)
	}
}

func backendAbbrev(b []byte) string {
	if len(b) <= 64 {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q... (%d bytes)", b[:64], len(b))
}

func (c *backendCase) roundTrip() {
	t, p := c.t, c.p
	key := p + "roundtrip"
	data := []byte("hello, fence")
	info := c.put(key, data, driver.PutOptions{})
	if etag := c.mustContain(key, data); etag != info.ETag {
		t.Fatalf("Put returned ETag %q, Head says %q", info.ETag, etag)
	}
}

func (c *backendCase) emptyObject() {
	t, b, p := c.t, c.b, c.p
	for _, size := range []int64{0, -1} {
		key := fmt.Sprintf("%sempty%d", p, size)
		info, err := b.Put(t.Context(), key, bytes.NewReader(nil), size, driver.PutOptions{})
		if err != nil {
			t.Fatalf("Put(%q, size %d): %v", key, size, err)
		}
		if etag := c.mustContain(key, []byte{}); etag != info.ETag {
			t.Fatalf("Put(size %d) returned ETag %q, Head says %q", size, info.ETag, etag)
		}
	}
}

// backendOpaqueReader hides the length of its content from backends that look
// for Len or Size methods.
type backendOpaqueReader struct{ r io.Reader }

func (o backendOpaqueReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func (c *backendCase) largeObject() {
	t, b, p := c.t, c.b, c.p
	data := make([]byte, 9<<20)
	for i := range data {
		data[i] = byte(i*7 + i>>13)
	}
	for _, size := range []int64{int64(len(data)), -1} {
		key := fmt.Sprintf("%slarge%d", p, size)
		var body io.Reader = bytes.NewReader(data)
		if size < 0 {
			body = backendOpaqueReader{body}
		}
		info, err := b.Put(t.Context(), key, body, size, driver.PutOptions{})
		if err != nil {
			t.Fatalf("Put(%q, size %d): %v", key, size, err)
		}
		rc, got, err := b.Get(t.Context(), key, driver.GetOptions{})
		if err != nil {
			t.Fatalf("Get(%q): %v", key, err)
		}
		h := sha256.New()
		n, err := io.Copy(h, rc)
		rc.Close()
		if err != nil {
			t.Fatalf("Get(%q): reading: %v", key, err)
		}
		want := sha256.Sum256(data)
		if n != int64(len(data)) || !bytes.Equal(h.Sum(nil), want[:]) {
			t.Fatalf("Get(%q) returned %d bytes that differ from the %d written", key, n, len(data))
		}
		c.checkInfo("Get", key, got, int64(len(data)))
		if got.ETag != info.ETag {
			t.Fatalf("Put(size %d) returned ETag %q, Get says %q", size, info.ETag, got.ETag)
		}
	}
}

func (c *backendCase) notFound() {
	t, b, p := c.t, c.b, c.p
	key := p + "missing"
	if rc, _, err := b.Get(t.Context(), key, driver.GetOptions{}); !errors.Is(err, driver.ErrNotFound) {
		if rc != nil {
			rc.Close()
		}
		t.Fatalf("Get(missing) error = %v, want ErrNotFound", err)
	}
	c.mustNotExist(key)
	// A key that is a prefix of an existing one does not exist either.
	c.put(p+"missing/child", []byte("x"), driver.PutOptions{})
	c.mustNotExist(key)
}

func (c *backendCase) ifNoneMatchExisting() {
	t, b, p := c.t, c.b, c.p
	key := p + "create"
	first := []byte("first")
	c.put(key, first, driver.PutOptions{Mode: driver.Create{}})
	_, err := b.Put(t.Context(), key, strings.NewReader("second"), 6, driver.PutOptions{Mode: driver.Create{}})
	if !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("Put(If-None-Match) over an existing object: error = %v, want ErrPreconditionFailed", err)
	}
	c.mustContain(key, first)
}

func (c *backendCase) ifMatchStale() {
	t, b, p := c.t, c.b, c.p
	key := p + "stale"
	v1 := c.put(key, []byte("v1"), driver.PutOptions{})
	c.put(key, []byte("v2"), driver.PutOptions{})
	_, err := b.Put(t.Context(), key, strings.NewReader("v3"), 2, driver.PutOptions{Mode: driver.Update{ETag: v1.ETag}})
	if !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("Put(If-Match stale etag): error = %v, want ErrPreconditionFailed", err)
	}
	c.mustContain(key, []byte("v2"))
}

func (c *backendCase) ifMatchMissing() {
	t, b, p := c.t, c.b, c.p
	other := c.put(p+"other", []byte("other"), driver.PutOptions{})
	key := p + "missing"
	_, err := b.Put(t.Context(), key, strings.NewReader("x"), 1, driver.PutOptions{Mode: driver.Update{ETag: other.ETag}})
	if !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("Put(Update) on a missing object: error = %v, want ErrPreconditionFailed", err)
	}
	c.mustNotExist(key)
}

func (c *backendCase) ifMatchCurrent() {
	t, p := c.t, c.p
	key := p + "current"
	v1 := c.put(key, []byte("v1"), driver.PutOptions{})
	v2 := c.put(key, []byte("v2"), driver.PutOptions{Mode: driver.Update{ETag: v1.ETag}})
	if etag := c.mustContain(key, []byte("v2")); etag != v2.ETag {
		t.Fatalf("Put returned ETag %q, Head says %q", v2.ETag, etag)
	}
	// The new ETag is current: a write conditional on it succeeds too.
	c.put(key, []byte("v3"), driver.PutOptions{Mode: driver.Update{ETag: v2.ETag}})
	c.mustContain(key, []byte("v3"))
}

func (c *backendCase) etagChanges() {
	t, p := c.t, c.p
	key := p + "etag"
	seen := map[string]string{}
	for _, v := range []string{"one", "two", "three, longer", ""} {
		info := c.put(key, []byte(v), driver.PutOptions{})
		if prev, ok := seen[info.ETag]; ok {
			t.Fatalf("contents %q and %q got the same ETag %q", prev, v, info.ETag)
		}
		seen[info.ETag] = v
	}
}

func (c *backendCase) delete() {
	t, b, p := c.t, c.b, c.p
	key := p + "doomed"
	c.put(key, []byte("x"), driver.PutOptions{})
	for i := range 2 {
		if err := b.Delete(t.Context(), key); err != nil {
			t.Fatalf("Delete #%d: %v", i+1, err)
		}
		c.mustNotExist(key)
	}
	if err := b.Delete(t.Context(), p+"never/existed"); err != nil {
		t.Fatalf("Delete of a key that never existed: %v", err)
	}
	// A deleted key can be created again, conditionally.
	c.put(key, []byte("again"), driver.PutOptions{Mode: driver.Create{}})
	c.mustContain(key, []byte("again"))
}

// listKeys returns the keys List reports under prefix, checking that each
// ObjectInfo matches want.
func (c *backendCase) listKeys(prefix string, want map[string]driver.ObjectInfo) []string {
	t, b := c.t, c.b
	t.Helper()
	var keys []string
	err := b.List(t.Context(), prefix, func(o driver.ObjectInfo) error {
		keys = append(keys, o.Key)
		if w, ok := want[o.Key]; ok && (o.Size != w.Size || o.ETag != w.ETag) {
			t.Errorf("List(%q) reported %q with size %d, ETag %q; want %d, %q", prefix, o.Key, o.Size, o.ETag, w.Size, w.ETag)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("List(%q): %v", prefix, err)
	}
	return keys
}

// nesting returns how the store treats nested keys (ProbeNesting, under
// the case's prefix), and logs it when the store does not list them.
func (c *backendCase) nesting() Nesting {
	n, detail := ProbeNesting(c.t, c.b, c.p+"nesting/")
	if n != NestingListed {
		c.t.Logf("this store's nested keys are %s (%s): the case uses keys none of which is another's prefix up to a \"/\"", n, detail)
	}
	return n
}

func (c *backendCase) list() {
	t, b, p := c.t, c.b, c.p
	// Chosen so that lexical order differs from a naive directory walk:
	// '-' and ' ' sort before '/', and '/' before letters.
	names := []string{"a", "a/b", "a/b/c", "a-b", "a b", "ab", "b", "b/a", "c"}
	cases := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"a", "a b", "a-b", "a/b", "a/b/c", "ab", "b", "b/a", "c"}},
		{"a", []string{"a", "a b", "a-b", "a/b", "a/b/c", "ab"}},
		{"a/", []string{"a/b", "a/b/c"}},
		{"a/b", []string{"a/b", "a/b/c"}},
		{"a/b/", []string{"a/b/c"}},
		{"b/", []string{"b/a"}},
		{"b/a/", nil},
		{"d", nil},
		{"zz/yy/", nil},
	}
	if c.nesting() != NestingListed {
		// The same orders without a nested pair: a directory's name
		// ("a") still sorts before "a b" and "a-b" in a naive walk.
		names = []string{"a/b", "a/c/d", "a-b", "a b", "ab", "b/a", "c"}
		cases = []struct {
			prefix string
			want   []string
		}{
			{"", []string{"a b", "a-b", "a/b", "a/c/d", "ab", "b/a", "c"}},
			{"a", []string{"a b", "a-b", "a/b", "a/c/d", "ab"}},
			{"a/", []string{"a/b", "a/c/d"}},
			{"a/c", []string{"a/c/d"}},
			{"a/c/", []string{"a/c/d"}},
			{"b/", []string{"b/a"}},
			{"b/a/", nil},
			{"d", nil},
			{"zz/yy/", nil},
		}
	}
	want := map[string]driver.ObjectInfo{}
	for i, n := range names {
		data := bytes.Repeat([]byte{'x'}, i)
		info := c.put(p+n, data, driver.PutOptions{})
		want[p+n] = driver.ObjectInfo{Key: p + n, Size: int64(len(data)), ETag: info.ETag}
	}
	// A key beside the prefix, which no listing below may report.
	outside := strings.TrimSuffix(p, "/") + "-outside"
	c.put(outside, []byte("x"), driver.PutOptions{})
	t.Cleanup(func() { b.Delete(context.WithoutCancel(t.Context()), outside) })

	for _, tc := range cases {
		var wantKeys []string
		for _, k := range tc.want {
			wantKeys = append(wantKeys, p+k)
		}
		got := c.listKeys(p+tc.prefix, want)
		if !slices.Equal(got, wantKeys) {
			t.Errorf("List(%q) = %q, want %q", p+tc.prefix, got, wantKeys)
		}
	}
}

func (c *backendCase) listStops() {
	t, b, p := c.t, c.b, c.p
	for _, n := range []string{"1", "2", "3", "4/5"} {
		c.put(p+n, []byte(n), driver.PutOptions{})
	}
	stop := errors.New("drivertest: stop")
	var seen []string
	err := b.List(t.Context(), p, func(o driver.ObjectInfo) error {
		seen = append(seen, o.Key)
		if len(seen) == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("List returned %v, want fn's error", err)
	}
	if want := []string{p + "1", p + "2"}; !slices.Equal(seen, want) {
		t.Fatalf("List called fn for %q, want %q then stop", seen, want)
	}
}

func (c *backendCase) keyShapes() {
	t, b, p := c.t, c.b, c.p
	nested := c.nesting() == NestingListed
	names := []string{
		"a/b/c", "A", "with space", "trailing space ", "unicode/日本語/ключ", "émoji 🙂",
		"at@sign", "per%cent", "per%25cent", "%2F", "colon:key", "con", "nul.txt", "a.b", ".hidden",
		"d.x", "f.x", "x/d.y", "x/f.y", "plus+and=equals", "q?uery#frag", "tilde~", "semi;colon", "brackets[1]",
		strings.Repeat("long", 40),
	}
	if nested {
		names = append(names, "a", "a/b")
	}
	slices.Sort(names)
	var want []string
	for _, n := range names {
		c.put(p+n, []byte("content of "+n), driver.PutOptions{Mode: driver.Create{}})
		want = append(want, p+n)
	}
	for _, n := range names {
		c.mustContain(p+n, []byte("content of "+n))
	}
	if got := c.listKeys(p, nil); !slices.Equal(got, want) {
		t.Fatalf("List(%q) = %q, want %q", p, got, want)
	}
	if !nested {
		// Deleting one key of a "directory" keeps its siblings.
		if err := b.Delete(t.Context(), p+"x/d.y"); err != nil {
			t.Fatal(err)
		}
		c.mustNotExist(p + "x/d.y")
		c.mustContain(p+"x/f.y", []byte("content of x/f.y"))
		return
	}
	if err := b.Delete(t.Context(), p+"a/b"); err != nil {
		t.Fatal(err)
	}
	c.mustNotExist(p + "a/b")
	c.mustContain(p+"a", []byte("content of a"))
	c.mustContain(p+"a/b/c", []byte("content of a/b/c"))
}

// race runs n conditional puts of key at once and returns the index and
// reply of the one that succeeded. Losers must fail with
// ErrPreconditionFailed or ErrConflict.
func (c *backendCase) race(key string, n int, opts driver.PutOptions) (int, driver.ObjectInfo) {
	t, b := c.t, c.b
	t.Helper()
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		infos   = make([]driver.ObjectInfo, n)
		errs    = make([]error, n)
		content = func(i int) string { return fmt.Sprintf("writer %d", i) }
	)
	for i := range n {
		wg.Go(func() {
			<-start
			c := content(i)
			infos[i], errs[i] = b.Put(t.Context(), key, strings.NewReader(c), int64(len(c)), opts)
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("writers %d and %d both succeeded with %+v", winner, i, opts)
		case err == nil:
			winner = i
		case !errors.Is(err, driver.ErrPreconditionFailed) && !errors.Is(err, driver.ErrConflict):
			t.Errorf("writer %d: error = %v, want ErrPreconditionFailed or ErrConflict", i, err)
		}
	}
	if winner < 0 {
		t.Fatalf("none of %d writers succeeded with %+v", n, opts)
	}
	if etag := c.mustContain(key, []byte(content(winner))); etag != infos[winner].ETag {
		t.Fatalf("winner's Put returned ETag %q, Head says %q", infos[winner].ETag, etag)
	}
	return winner, infos[winner]
}

func (c *backendCase) raceIfMatch() {
	p := c.p
	key := p + "race"
	base := c.put(key, []byte("base"), driver.PutOptions{})
	c.race(key, 16, driver.PutOptions{Mode: driver.Update{ETag: base.ETag}})
}

func (c *backendCase) raceIfNoneMatch() {
	p := c.p
	c.race(p+"race", 16, driver.PutOptions{Mode: driver.Create{}})
}

func (c *backendCase) cancelledContext() {
	t, b, p := c.t, c.b, c.p
	key := p + "cancelled"
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	want := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: error = %v, want context.Canceled", op, err)
		}
	}

	_, err := b.Put(ctx, key, strings.NewReader("x"), 1, driver.PutOptions{})
	want("Put", err)
	c.mustNotExist(key)

	c.put(key, []byte("kept"), driver.PutOptions{})
	_, err = b.Put(ctx, key, strings.NewReader("lost"), 4, driver.PutOptions{})
	want("Put over an existing object", err)
	want("Delete", b.Delete(ctx, key))
	c.mustContain(key, []byte("kept"))

	rc, _, err := b.Get(ctx, key, driver.GetOptions{})
	if rc != nil {
		rc.Close()
	}
	want("Get", err)
	_, err = b.Head(ctx, key)
	want("Head", err)
	for _, prefix := range []string{p, p + "nothing/"} {
		want("List", b.List(ctx, prefix, func(driver.ObjectInfo) error {
			t.Error("List with a cancelled context called fn")
			return nil
		}))
	}
}
