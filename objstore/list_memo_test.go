package objstore

import (
	"fmt"
	"slices"
	"testing"

	"github.com/fencedstore/fence/objstore/memstore"
)

// keysOf returns the keys of a listing's versions.
func keysOf(vs []Version) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Key
	}
	return out
}

// pageKeys pages through a listing from opts with page, and returns
// its keys.
func pageKeys(t *testing.T, page func(*ListOptions) (Page, error), opts *ListOptions) []string {
	t.Helper()
	var keys []string
	for {
		p, err := page(opts)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, keysOf(p.Versions)...)
		if p.Next == "" {
			return keys
		}
		opts.After = p.Next
	}
}

// TestListMemo: a paged listing remembers its manifest's sorted keys for
// its next page and lets them go with its last page; a commit between
// two pages of Store.ListPage is seen by the next page (a new manifest,
// never the remembered keys), while pages of a Snapshot taken before it
// stay as they were; Prefix and After select the same keys as a scan of
// every key would.
func TestListMemo(t *testing.T) {
	ctx := t.Context()
	s := New(memstore.New(), &Options{SkipProbe: true})
	var changes []Change
	var all []string
	for i := range 40 {
		k := fmt.Sprintf("%c/%02d", 'a'+i%4, i)
		changes = append(changes, PutBytes(k, []byte("v")))
		all = append(all, k)
	}
	slices.Sort(all)
	if _, err := s.Commit(ctx, "d", 1, changes, nil); err != nil {
		t.Fatal(err)
	}
	sn, err := s.Snapshot(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}

	p1, err := s.ListPage(ctx, "d", &ListOptions{Limit: 15})
	if err != nil || !slices.Equal(keysOf(p1.Versions), all[:15]) || p1.Next != all[14] {
		t.Fatalf("page 1: %v, next %q, %v; want %v", keysOf(p1.Versions), p1.Next, err, all[:15])
	}
	if s.lists.live == nil || len(s.lists.keys) != 40 {
		t.Fatalf("after a page with more to come, the memo holds %d keys, want 40", len(s.lists.keys))
	}

	// A commit that deletes a key of the next page and adds one.
	if _, err := s.Commit(ctx, "d", 1, []Change{DeleteKey(all[15]), PutBytes("b/new", []byte("v"))}, nil); err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(slices.Clone(all), func(k string) bool { return k == all[15] })
	want = append(want, "b/new")
	slices.Sort(want)
	rest := pageKeys(t, func(o *ListOptions) (Page, error) { return s.ListPage(ctx, "d", o) }, &ListOptions{After: p1.Next, Limit: 15})
	if w := want[slices.Index(want, p1.Next)+1:]; !slices.Equal(rest, w) {
		t.Fatalf("pages after the commit: %v, want %v", rest, w)
	}
	if s.lists.live != nil || s.lists.m != nil {
		t.Fatal("the memo still holds keys after the listing's last page")
	}

	// The Snapshot taken before the commit pages as it was.
	old := pageKeys(t, func(o *ListOptions) (Page, error) { return sn.ListPage(ctx, o) }, &ListOptions{Limit: 7})
	if !slices.Equal(old, all) {
		t.Fatalf("the earlier Snapshot's pages: %v, want %v", old, all)
	}

	// Prefix and After, against a scan of every key.
	now, err := s.Snapshot(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []ListOptions{
		{Prefix: "b/"}, {Prefix: "b/", After: "a/zz"}, {Prefix: "b/", After: "b/05"}, {Prefix: "b/", After: "b/5"},
		{Prefix: "c/", After: "d/"}, {Prefix: "e/"}, {After: "c/"}, {After: "z"}, {Prefix: "b/0", Limit: 2},
	} {
		var scan []string
		for _, k := range want {
			if len(scan) == tc.Limit && tc.Limit > 0 {
				break
			}
			if len(k) >= len(tc.Prefix) && k[:len(tc.Prefix)] == tc.Prefix && k > tc.After {
				scan = append(scan, k)
			}
		}
		got, err := now.List(ctx, &tc)
		if err != nil || !slices.Equal(keysOf(got), scan) {
			t.Errorf("List(%+v): %v, %v; want %v", tc, keysOf(got), err, scan)
		}
	}
}
