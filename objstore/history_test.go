package objstore_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// History returns each commit with its token, holder, time and key
// names, marks the fences, and leaves out rejected commits.
func TestHistory(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s := objstore.New(memstore.New(), &objstore.Options{Holder: "w", Now: func() time.Time { now = now.Add(time.Minute); return now }})
	if _, err := s.History(ctx, "d", nil); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("History of a new domain: %v; want ErrNotFound", err)
	}
	must := func(_ objstore.CommitResult, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Fence(ctx, "d", 1))
	must(s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("b", []byte("1")), objstore.PutBytes("a", []byte("2"))}, nil))
	must(s.Fence(ctx, "d", 2))
	var many []objstore.Change
	for i := range 20 {
		many = append(many, objstore.PutBytes(fmt.Sprintf("m/%02d", i), []byte("x")))
	}
	must(s.Commit(ctx, "d", 2, append(many, objstore.DeleteKey("a")), nil))
	if _, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutBytes("a", []byte("stale"))}, nil); !errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("stale commit: %v; want fenced", err)
	}

	recs, err := s.History(ctx, "d", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("History = %+v; want 4 commits (the fenced one is not one)", recs)
	}
	for i, want := range []struct {
		token         uint64
		fence         bool
		puts, deletes int
		putKeys       []string
		deleted       []string
		truncated     bool
	}{
		{1, true, 0, 0, nil, nil, false},
		{1, false, 2, 0, []string{"a", "b"}, nil, false},
		{2, true, 0, 0, nil, nil, false},
		{2, false, 20, 1, nil, []string{"a"}, true},
	} {
		r := recs[i]
		if r.Seq != uint64(i+1) || r.Token != want.token || r.Fence != want.fence || r.Puts != want.puts || r.Deletes != want.deletes ||
			r.Truncated != want.truncated || !slices.Equal(r.DeletedKeys, want.deleted) || r.Holder != "w" || r.ID == "" || r.Time.IsZero() {
			t.Errorf("record %d = %+v; want %+v", i, r, want)
		}
		if want.putKeys != nil && !slices.Equal(r.PutKeys, want.putKeys) {
			t.Errorf("record %d names puts %v; want %v", i, r.PutKeys, want.putKeys)
		}
	}
	if got := recs[3].PutKeys; len(got) != 16 || got[0] != "m/00" || got[15] != "m/15" {
		t.Errorf("20 puts named as %v; want the first 16 in order", got)
	}

	since, err := s.History(ctx, "d", &objstore.HistoryOptions{Since: recs[2].Time})
	if err != nil || len(since) != 2 || since[0].Seq != 3 {
		t.Fatalf("History since the third commit = %+v, %v; want the last 2", since, err)
	}
}
