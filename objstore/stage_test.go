package objstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

func stage(t *testing.T, s *objstore.Store, domain, key string, token uint64, data []byte) objstore.Receipt {
	t.Helper()
	r, err := s.Stage(context.Background(), domain, key, token, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("stage %q: %v", key, err)
	}
	return r
}

func wantAbsent(t *testing.T, s *objstore.Store, domain string, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, _, err := s.ReadAll(context.Background(), domain, k); !errors.Is(err, objstore.ErrNotFound) {
			t.Fatalf("read %q: %v, want ErrNotFound", k, err)
		}
	}
}

func wantValue(t *testing.T, s *objstore.Store, domain, key string, want []byte) {
	t.Helper()
	got, _, err := s.ReadAll(context.Background(), domain, key)
	if err != nil {
		t.Fatalf("read %q: %v", key, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %q: %d bytes, want %d", key, len(got), len(want))
	}
}

// TestStageThenCommit: staged values (small ones too) are invisible
// until one commit publishes them, beside the committer's own put and
// delete, from receipts that went through JSON.
func TestStageThenCommit(t *testing.T) {
	ctx := context.Background()
	s := objstore.New(memstore.New(), nil)
	if _, err := s.Put(ctx, "d", "old", 7, strings.NewReader("x"), 1); err != nil {
		t.Fatal(err)
	}
	small, large := []byte("tiny"), bytes.Repeat([]byte("L"), 1<<20)
	var receipts []objstore.Receipt
	for i, data := range [][]byte{small, large} {
		r := stage(t, s, "d", fmt.Sprintf("k%d", i), 7, data)
		// Receipts travel as JSON.
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back objstore.Receipt
		if err := json.Unmarshal(line, &back); err != nil {
			t.Fatal(err)
		}
		receipts = append(receipts, back)
	}
	wantAbsent(t, s, "d", "k0", "k1")
	changes := []objstore.Change{objstore.PutBytes("own", []byte("mine")), objstore.DeleteKey("old")}
	for _, r := range receipts {
		changes = append(changes, objstore.PutReceipt(r))
	}
	res, err := s.Commit(ctx, "d", 7, changes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Versions) != 3 || res.Versions[1].Object != receipts[0].Object || res.Versions[2].Object != receipts[1].Object {
		t.Fatalf("versions %+v", res.Versions)
	}
	wantValue(t, s, "d", "k0", small)
	wantValue(t, s, "d", "k1", large)
	wantValue(t, s, "d", "own", []byte("mine"))
	wantAbsent(t, s, "d", "old")

	// A retry of the commit (its outcome taken as unknown) finds it
	// landed, and reports the staged versions it published.
	changes[0] = objstore.PutBytes("own", []byte("mine"))
	again, err := s.Commit(ctx, "d", 7, changes, &objstore.CommitOptions{ID: res.ID, After: res.Seq - 1})
	if err != nil || !again.Recovered || len(again.Versions) != 3 || again.Versions[2].Object != receipts[1].Object {
		t.Fatalf("retry: %+v, %v; want recovered with the 3 versions", again, err)
	}
}

// TestStageFirstCreatesManifest: staging into a new domain writes its
// manifest first, so a version object never exists without one.
func TestStageFirstCreatesManifest(t *testing.T) {
	ctx := context.Background()
	s := objstore.New(memstore.New(), nil)
	r := stage(t, s, "fresh", "a", 3, []byte("v"))
	if h, err := s.Highest(ctx, "fresh"); err != nil || h != 3 {
		t.Fatalf("highest %d, %v; want 3", h, err)
	}
	if _, err := s.Commit(ctx, "fresh", 3, []objstore.Change{objstore.PutReceipt(r)}, nil); err != nil {
		t.Fatal(err)
	}
	wantValue(t, s, "fresh", "a", []byte("v"))
}

// TestStageFencedRefusesEarly: a worker whose token is already fenced
// is told so before it uploads.
func TestStageFencedRefusesEarly(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	s := objstore.New(mem, nil)
	if _, err := s.Fence(ctx, "d", 5); err != nil {
		t.Fatal(err)
	}
	_, err := s.Stage(ctx, "d", "a", 4, strings.NewReader("late"), 4)
	var fe *objstore.FencedError
	if !errors.As(err, &fe) || fe.Highest != 5 {
		t.Fatalf("stage at a fenced token: %v", err)
	}
	if n := len(versionObjects(t, mem, "d")); n != 0 {
		t.Fatalf("%d version objects after a refused stage", n)
	}
}

// TestReceiptRefused: a receipt from another domain, another token, or
// whose version is gone or of another size, or that names an object
// Stage did not write, is refused with an error that names it, and
// nothing of the commit is published.
func TestReceiptRefused(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	s := objstore.New(mem, &objstore.Options{InlineMax: -1})
	for _, d := range []string{"d", "other"} {
		if _, err := s.Fence(ctx, d, 5); err != nil {
			t.Fatal(err)
		}
	}
	good := stage(t, s, "d", "good", 5, []byte("good"))
	otherDomain := stage(t, s, "other", "x", 5, []byte("x"))
	gone := stage(t, s, "d", "gone", 5, []byte("gone"))
	if err := mem.Delete(ctx, gone.Object); err != nil {
		t.Fatal(err)
	}
	resized := stage(t, s, "d", "resized", 5, []byte("abc"))
	resized.Size = 2
	committed, err := s.Put(ctx, "d", "c", 5, strings.NewReader("c"), 1)
	if err != nil {
		t.Fatal(err)
	}
	notStaged := good
	notStaged.Key, notStaged.Object = "c", committed.Versions[0].Object
	lowToken := good
	lowToken.Token = 4
	badFormat := good
	badFormat.Format = "fence-receipt/99"

	snap := func() int {
		vs, err := s.List(ctx, "d", nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(vs)
	}
	live := snap()
	for _, tc := range []struct {
		name string
		r    objstore.Receipt
		want error
		says string
	}{
		{"other domain", otherDomain, objstore.ErrReceipt, `staged in domain "other"`},
		{"gone", gone, objstore.ErrReceipt, "does not exist"},
		{"resized", resized, objstore.ErrReceipt, "has 3 bytes, the receipt says 2"},
		{"not staged", notStaged, objstore.ErrInvalid, "not written by Stage"},
		{"other token", lowToken, objstore.ErrInvalid, "object is at token 5, the receipt says 4"},
		{"unknown format", badFormat, objstore.ErrInvalid, "unknown format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes := []objstore.Change{objstore.PutBytes("own", []byte("o")), objstore.PutReceipt(tc.r)}
			if tc.r.Key != good.Key {
				changes = append(changes, objstore.PutReceipt(good))
			}
			_, err := s.Commit(ctx, "d", 5, changes, nil)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), tc.r.Object) {
				t.Fatalf("commit: %v; want %v saying %q and naming %q", err, tc.want, tc.says, tc.r.Object)
			}
			wantAbsent(t, s, "d", "own", "good")
			if n := snap(); n != live {
				t.Fatalf("%d keys live, want %d: something was published", n, live)
			}
		})
	}
	// A receipt at another token than the commit's, well formed.
	high := stage(t, s, "d", "h", 5, []byte("h"))
	if _, err := s.Fence(ctx, "d", 6); err != nil {
		t.Fatal(err)
	}
	_, err = s.Commit(ctx, "d", 6, []objstore.Change{objstore.PutReceipt(high)}, nil)
	if !errors.Is(err, objstore.ErrReceipt) || !strings.Contains(err.Error(), "staged at token 5") {
		t.Fatalf("commit at 6 of a receipt at 5: %v", err)
	}
	wantAbsent(t, s, "d", "h")
}

// TestReceiptOfStaleTokenFenced: once the domain is fenced at a higher
// token, a commit of receipts at the old token is a *FencedError, as
// any commit of it is.
func TestReceiptOfStaleTokenFenced(t *testing.T) {
	ctx := context.Background()
	s := objstore.New(memstore.New(), nil)
	r := stage(t, s, "d", "a", 1, []byte("a"))
	if _, err := s.Fence(ctx, "d", 2); err != nil {
		t.Fatal(err)
	}
	_, err := s.Commit(ctx, "d", 1, []objstore.Change{objstore.PutReceipt(r)}, nil)
	var fe *objstore.FencedError
	if !errors.As(err, &fe) || fe.Highest != 2 {
		t.Fatalf("stale commit of a receipt: %v", err)
	}
	wantAbsent(t, s, "d", "a")
}
