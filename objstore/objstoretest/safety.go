package objstoretest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// The cases in this file replay, one each, the ways a review found to lose
// an acknowledged write or misreport a commit (docs/design.md, "Garbage
// collection" and "Outcomes"). Each one failed on the code before the fix.

// onceBefore returns a rule that runs fn just before the next write of
// domain's manifest is sent, and then lets that write through unharmed.
func onceBefore(domain string, fn func()) faulty.Rule {
	return faulty.Rule{Op: faulty.OpPut, Key: format.ManifestKey(domain), Func: func(context.Context, faulty.Call) faulty.Fault {
		fn()
		return faulty.Fault{}
	}}
}

// collect runs garbage collection with grace 0 from a Store of its own,
// as a gc process beside the writers would.
func collect(t *testing.T, f *faulty.Backend, domain string, now func() time.Time) {
	t.Helper()
	gc := newStore(f.Unwrap(), &objstore.Options{Holder: "gc", Now: now})
	if _, err := gc.Collect(context.Background(), domain, 0); err != nil {
		t.Errorf("collect beside the writer: %v", err)
	}
}

// testGCBesideCommitInProgress: a commit has uploaded its version and is
// about to publish it when gc runs with grace 0. The version must survive.
func testGCBesideCommitInProgress(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 1, "before")
	f.Add(onceBefore("d", func() { collect(t, f, "d", nil) }))
	commitPut(t, s, "d", "k", 2, "mine")
	readFresh(t, f, "d", "k", "mine")
}

// testGCClockAhead: gc's clock is two hours ahead and its grace one hour;
// a commit in progress must lose nothing, whatever the clocks say.
func testGCClockAhead(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 1, "before")
	ahead := func() time.Time { return time.Now().Add(2 * time.Hour) }
	f.Add(onceBefore("d", func() {
		gc := newStore(f.Unwrap(), &objstore.Options{Holder: "gc", Now: ahead})
		if _, err := gc.Collect(context.Background(), "d", time.Hour); err != nil {
			t.Errorf("collect: %v", err)
		}
	}))
	commitPut(t, s, "d", "k", 1, "mine")
	readFresh(t, f, "d", "k", "mine")
}

// testGCBesideRetry: a commit's outcome is unknown; its retry runs while
// gc collects, between the retry's uploads and its manifest write. The
// retry is acknowledged, so its bytes must be readable.
func testGCBesideRetry(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 1, "before")
	ue := unknownCommit(t, s, f, "d", 2, "mine")
	f.Add(onceBefore("d", func() { collect(t, f, "d", nil) }))
	c, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("mine"))}, ue.Retry())
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	if len(c.Versions) != 1 {
		t.Fatalf("retry = %+v, want one version", c)
	}
	readFresh(t, f, "d", "k", "mine")
}

// testGCBesideFoldReusingShard: a fold rebuilds exactly the bytes of an
// older shard that the manifest no longer names, while gc collects. The
// shard the new manifest names must exist.
func testGCBesideFoldReusingShard(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	const fold = 257 // past the overlay's bound: the commit folds
	keys := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s%03d", prefix, i)
		}
		return out
	}
	commit := func(puts, deletes []string) {
		t.Helper()
		var ch []objstore.Change
		for _, k := range puts {
			ch = append(ch, objstore.PutBytes(k, []byte("v "+k)))
		}
		for _, k := range deletes {
			ch = append(ch, objstore.DeleteKey(k))
		}
		if _, err := s.Commit(tctx(t), "d", 1, ch, nil); err != nil {
			t.Fatalf("commit: %v", err)
		}
	}
	commit(keys("k", fold), nil)                // shard A: the k keys
	commit(keys("l", 4), keys("never-b", fold)) // shard B: k and l; A unnamed
	f.Add(onceBefore("d", func() { collect(t, f, "d", nil) }))
	commit(nil, append(keys("l", 4), keys("never-c", fold)...)) // k alone again: A's bytes
	for _, k := range keys("k", fold)[:8] {
		readFresh(t, f, "d", k, "v "+k)
	}
}

// testRetryAfterLogMovedOn: a commit landed, its reply was lost, and a new
// holder fenced the domain and committed past the log before the read-back.
// The first attempt reports unknown; so must the retry, never fenced.
func testRetryAfterLogMovedOn(t *testing.T, _ *objstore.Store, f *faulty.Backend) {
	s, other := smallLog(f)
	commitPut(t, s, "d", "k", 1, "before")
	ue := landedUnknown(t, s, f, errInjected, func() { commitMany(t, other, "d", 3) })
	_, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("mine"))}, ue.Retry())
	if !errors.Is(err, objstore.ErrOutcomeUnknown) || errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("retry of a commit that landed, after the log moved on: %v; want unknown again, never fenced", err)
	}
}

// testRetryNotAppliedTwice: a commit landed, its reply was lost, and the
// same holder went on committing at the same token past the log. The
// retry must not apply the commit again over the later writes.
func testRetryNotAppliedTwice(t *testing.T, _ *objstore.Store, f *faulty.Backend) {
	s, other := smallLog(f)
	commitPut(t, s, "d", "k", 2, "before")
	ue := landedUnknown(t, s, f, errInjected, func() { commitMany(t, other, "d", 2) })
	_, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("mine"))}, ue.Retry())
	if !errors.Is(err, objstore.ErrOutcomeUnknown) {
		t.Fatalf("retry of a commit that landed, after the log moved on at the same token: %v; want unknown again", err)
	}
	readFresh(t, f, "d", "k", fmt.Sprint("other ", logLimitSmall+1))
}

// testConflictAfterLandedWrite: a 409 answers a retry of a write that
// landed; then the log moves on. The commit may have landed: unknown,
// never fenced.
func testConflictAfterLandedWrite(t *testing.T, _ *objstore.Store, f *faulty.Backend) {
	s, other := smallLog(f)
	commitPut(t, s, "d", "k", 1, "before")
	landedUnknown(t, s, f, conflictErr, func() { commitMany(t, other, "d", 3) })
}

// testRetryDecidesNotLanded: a commit's writes never landed; its retry,
// with the log still covering its base, applies it once.
func testRetryDecidesNotLanded(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 1, "before")
	ue := unknownCommit(t, s, f, "d", 2, "mine")
	other := newStore(f.Unwrap(), &objstore.Options{Holder: "other"})
	commitMany(t, other, "d", 2) // the log still holds every commit since
	c, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("mine"))}, ue.Retry())
	if err != nil || c.Recovered {
		t.Fatalf("retry of a commit that did not land: %+v, %v; want applied now", c, err)
	}
	readFresh(t, f, "d", "k", "mine")
	// And a retry of a commit that did not land, after a higher token,
	// is fenced: it provably did not and cannot land.
	ue = unknownCommit(t, s, f, "d", 2, "late")
	if _, err := other.Fence(tctx(t), "d", 3); err != nil {
		t.Fatal(err)
	}
	_, err = s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("late"))}, ue.Retry())
	wantFenced(t, err, 2, 3)
}

// testFirstCommitCreationUnknown: the write that creates a new domain's
// manifest ends unknown. The commit itself wrote nothing: a plain failure,
// never an unknown outcome under an id that a retry could not settle.
func testFirstCommitCreationUnknown(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	failManifestWrites(f, "new")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := s.Commit(ctx, "new", 1, []objstore.Change{objstore.PutBytes("k", []byte("x"))}, nil)
	if err == nil || errors.Is(err, objstore.ErrOutcomeUnknown) {
		t.Fatalf("commit whose manifest creation ended unknown: %v; want a plain failure", err)
	}
	f.Clear()
	commitPut(t, s, "new", "k", 1, "x")
	mustRead(t, s, "new", "k", "x")
}

// testLostManifestFailsClosed: the store loses a domain's manifest after
// gc removed every version (all keys deleted). The floor marker, and the
// Store that saw the manifest, still refuse to treat the domain as new.
func testLostManifestFailsClosed(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 5, "x")
	if _, err := s.Delete(tctx(t), "d", "k", 5); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fence(tctx(t), "d", 6); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Collect(tctx(t), "d", 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Unwrap().Delete(tctx(t), format.ManifestKey("d")); err != nil {
		t.Fatal(err)
	}
	fresh := newStore(f.Unwrap(), nil)
	// The same Store may refuse token 1 from its cache; token 7 makes it
	// write, and find the manifest gone.
	for name, st := range map[string]*objstore.Store{"same store": s, "fresh store": fresh} {
		for _, tok := range []uint64{1, 7} {
			_, err := st.Put(tctx(t), "d", "k", tok, strings.NewReader("stale"), -1)
			if !errors.Is(err, objstore.ErrCorruptManifest) && (name == "fresh store" || tok == 7) {
				t.Fatalf("%s: put at token %d after the manifest was lost: %v; want fail closed", name, tok, err)
			}
		}
		if _, err := st.Highest(tctx(t), "d"); !errors.Is(err, objstore.ErrCorruptManifest) {
			t.Fatalf("%s: highest after the manifest was lost: %v; want fail closed", name, err)
		}
	}
}

// testManifestWentBack: the store serves an older copy of the manifest.
// A Store that saw the newer one refuses it.
func testManifestWentBack(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 5, "old")
	old := rawManifest(t, f, "d")
	commitPut(t, s, "d", "k", 6, "new")
	overwriteManifest(t, f, "d", old)
	_, err := s.Put(tctx(t), "d", "k", 7, strings.NewReader("new"), -1)
	if !errors.Is(err, objstore.ErrCorruptManifest) {
		t.Fatalf("put on a manifest that went back: %v; want fail closed", err)
	}
	if _, err := s.Highest(tctx(t), "d"); !errors.Is(err, objstore.ErrCorruptManifest) {
		t.Fatalf("highest of a manifest that went back: %v; want fail closed", err)
	}
}

// testTokenNeverIssued: with an issuer, a token the coordinator never
// issued cannot raise the domain, and nothing is written; the real
// holder still commits afterwards.
func testTokenNeverIssued(t *testing.T, _ *objstore.Store, f *faulty.Backend) {
	iss := &counterIssuer{last: map[string]uint64{"d": 3}}
	s := newStore(f, &objstore.Options{Holder: "suite", Issuer: iss})
	commitPut(t, s, "d", "k", 3, "real")
	before := listAll(t, f.Unwrap())
	for _, tok := range []uint64{4, 1000, objstore.MaxToken} {
		_, err := s.Put(tctx(t), "d", "k", tok, strings.NewReader("typo"), -1)
		var ie *objstore.InvalidError
		if !errors.As(err, &ie) || ie.What != "token" || !strings.Contains(err.Error(), "never issued") {
			t.Fatalf("put with token %d, never issued: %v; want refused", tok, err)
		}
		if _, err := s.Fence(tctx(t), "d", tok); !errors.Is(err, objstore.ErrInvalid) {
			t.Fatalf("fence with token %d, never issued: %v; want refused", tok, err)
		}
	}
	if _, err := s.Put(tctx(t), "fresh", "k", 1, strings.NewReader("x"), -1); !errors.Is(err, objstore.ErrInvalid) {
		t.Fatalf("put in a domain the coordinator never issued a token for: %v; want refused", err)
	}
	// Only the newest token may raise: an older one belongs to a lease
	// that has ended.
	iss.set("d", 5)
	if _, err := s.Fence(tctx(t), "d", 4); !errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("fence with token 4 after the coordinator issued 5: %v; want fenced", err)
	}
	// The fenced fence leaves its record (a diagnostic no commit reads);
	// nothing else is written.
	var records, after []string
	for _, k := range listAll(t, f.Unwrap()) {
		if strings.HasPrefix(k, format.FencedPrefix("d")) {
			records = append(records, k)
		} else {
			after = append(after, k)
		}
	}
	if strings.Join(after, "\n") != strings.Join(before, "\n") || len(records) != 1 {
		t.Fatalf("refused commits wrote objects: before %v, after %v and fenced-attempt records %v (want the fenced fence's only)", before, after, records)
	}
	commitPut(t, s, "d", "k", 3, "still mine") // equal: raises nothing
	commitPut(t, s, "d", "k", 5, "next holder")
	mustRead(t, s, "d", "k", "next holder")
}

// testCachedShardChecked: a manifest that names a shard this Store has
// cached, under a reference that does not match it, is refused as it
// would be without the cache.
func testCachedShardChecked(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	var ch []objstore.Change
	for i := range 300 {
		ch = append(ch, objstore.PutBytes(fmt.Sprintf("k%03d", i), []byte("v")))
	}
	if _, err := s.Commit(tctx(t), "d", 1, ch, nil); err != nil {
		t.Fatal(err)
	}
	mustRead(t, s, "d", "k001", "v") // the shard is now cached
	raw := rawManifest(t, f, "d")
	bad := strings.Replace(raw, `"count":300`, `"count":299`, 1)
	if bad == raw {
		t.Fatalf("manifest has no shard of 300 keys: %s", raw)
	}
	overwriteManifest(t, f, "d", bad)
	if _, _, err := s.ReadAll(tctx(t), "d", "k001"); !errors.Is(err, objstore.ErrCorruptManifest) {
		t.Fatalf("read through a cached shard that its manifest names wrongly: %v; want corrupt", err)
	}
}

// testPendingWriteNotFailed: a manifest write fails and the read-back
// finds the manifest unchanged, so the write may still be in flight; the
// commit then fails before writing again (here, its fold cannot write a
// shard). It must report unknown, not a plain failure: the write in
// flight may yet land. (Found by the model in docs/model.md.)
func testPendingWriteNotFailed(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 1, "before")
	shardPut := func(c faulty.Call) bool { return strings.HasPrefix(c.Key, "d/_fence/s/") }
	errShard := fmt.Errorf("objstoretest: injected refusal of a shard: %w", objstore.ErrNotFound)
	f.Add(faulty.Rule{Op: faulty.OpPut, Key: format.ManifestKey("d"), Func: func(context.Context, faulty.Call) faulty.Fault {
		f.Add(faulty.Rule{Op: faulty.OpPut, Match: shardPut, Fault: faulty.Fault{Err: errShard}}) // the next fold fails
		return faulty.Fault{Err: errInjected}
	}})
	var ch []objstore.Change
	for i := range 257 { // enough to fold
		ch = append(ch, objstore.PutBytes(fmt.Sprintf("k%03d", i), []byte("v")))
	}
	_, err := s.Commit(tctx(t), "d", 1, ch, nil)
	if !errors.Is(err, objstore.ErrOutcomeUnknown) {
		t.Fatalf("commit whose write may still be in flight, then failed: %v; want outcome unknown", err)
	}
}

// testRetryWhileManifestLost: a commit's manifest write landed, its reply
// was lost, and the store then lost the manifest, so the read-back fails
// closed and the commit ends unknown. Its retry, while the manifest is
// still lost, must say unknown (failing closed), never a plain failure;
// once the manifest is back, the retry finds the commit landed. (Found by
// the fault suite's forgetful kind.)
func testRetryWhileManifestLost(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 1, "before")
	var saved string
	ue := landedUnknown(t, s, f, errInjected, func() {
		saved = rawManifest(t, f, "d")
		if err := f.Unwrap().Delete(context.Background(), format.ManifestKey("d")); err != nil {
			t.Error(err)
		}
	})
	retry := func() (objstore.CommitResult, error) {
		return s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("mine"))}, ue.Retry())
	}
	if _, err := retry(); !errors.Is(err, objstore.ErrOutcomeUnknown) || !errors.Is(err, objstore.ErrCorruptManifest) {
		t.Fatalf("retry of a commit that landed, with the manifest lost: %v; want unknown, failing closed", err)
	}
	overwriteManifest(t, f, "d", saved)
	if c, err := retry(); err != nil || !c.Recovered {
		t.Fatalf("retry once the manifest is back: %+v, %v; want the landed commit, recovered", c, err)
	}
	mustRead(t, s, "d", "k", "mine")
}
