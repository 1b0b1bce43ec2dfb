package objstoretest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// RunStore runs the fencing conformance suite: objstore.Store over the
// backends newBackend returns. Each subtest gets a fresh backend; the suite
// injects faults by wrapping it, so it runs unchanged on every backend.
// Every case runs twice: with the Store's defaults, so that its small
// values are kept inline in the manifest, and under VersionsOnly with
// inline values off, so that every value is a version object of its own.
func RunStore(t *testing.T, newBackend func(t *testing.T) driver.Backend) {
	runStore(t, newBackend, 0)
	t.Run("VersionsOnly", func(t *testing.T) { runStore(t, newBackend, -1) })
}

// inlineMax is the Options.InlineMax of the stores the running cases
// make (newStore): RunStore runs one mode at a time.
var inlineMax int64

// newStore returns a Store over b with opts (nil: defaults) in the
// running mode.
func newStore(b driver.Backend, opts *objstore.Options) *objstore.Store {
	var o objstore.Options
	if opts != nil {
		o = *opts
	}
	if o.InlineMax == 0 {
		o.InlineMax = inlineMax
	}
	return objstore.New(b, &o)
}

func runStore(t *testing.T, newBackend func(t *testing.T) driver.Backend, inline int64) {
	inlineMax = inline
	cases := []struct {
		name string
		fn   func(t *testing.T, s *objstore.Store, f *faulty.Backend)
	}{
		{"StaleTokenRejected", testStaleTokenRejected},
		{"EqualTokenAccepted", testEqualTokenAccepted},
		{"FenceOnTakeover", testFenceOnTakeover},
		{"RacingCommits", testRacingCommits},
		{"DroppedReplyResolved", testDroppedReplyResolved},
		{"ReplyReplacedBy503", testReplyReplacedBy503},
		{"ReplyReplacedBy412", testReplyReplacedBy412},
		{"ReplyReplacedBy412LogMovedOn", testReplyReplacedBy412LogMovedOn},
		{"FenceRetriedAfterLogMovedOn", testFenceRetriedAfterLogMovedOn},
		{"ConflictRetried", testConflictRetried},
		{"OutcomeUnknown", testOutcomeUnknown},
		{"StaleWriterPausedMidCommit", testPausedMidCommit},
		{"CorruptManifest", testCorruptManifest},
		{"MissingManifestWithVersions", testMissingManifest},
		{"AtomicMultiKeyCommit", testAtomicMultiKey},
		{"SnapshotPinned", testSnapshotPinned},
		{"DeleteIsFenced", testDelete},
		{"IntegrityChecked", testIntegrity},
		{"IntegrityFlipAndTruncate", testIntegrityChecks},
		{"InvalidInput", testInvalidInput},
		{"DomainsIndependent", testDomainsIndependent},
		{"LargeDomainRacing", testLargeDomainRacing},
		{"GCBesideCommitInProgress", testGCBesideCommitInProgress},
		{"GCClockAhead", testGCClockAhead},
		{"GCBesideRetry", testGCBesideRetry},
		{"GCBesideFoldReusingShard", testGCBesideFoldReusingShard},
		{"RetryAfterLogMovedOn", testRetryAfterLogMovedOn},
		{"RetryNotAppliedTwice", testRetryNotAppliedTwice},
		{"ConflictAfterLandedWrite", testConflictAfterLandedWrite},
		{"RetryDecidesNotLanded", testRetryDecidesNotLanded},
		{"FirstCommitCreationUnknown", testFirstCommitCreationUnknown},
		{"LostManifestFailsClosed", testLostManifestFailsClosed},
		{"ManifestWentBack", testManifestWentBack},
		{"TokenNeverIssued", testTokenNeverIssued},
		{"CachedShardChecked", testCachedShardChecked},
		{"PendingWriteNotFailed", testPendingWriteNotFailed},
		{"RetryWhileManifestLost", testRetryWhileManifestLost},
		{"Writer", testWriter},
		{"RangeReader", testRangeReader},
		{"ListPages", testListPages},
		{"PlainCopyStaleHolder", testPlainCopyStaleHolder},
		{"PlainCopySameBytesRace", testPlainCopySameBytesRace},
		{"PlainCopyCorrupt", testPlainCopyCorrupt},
		{"InlineValues", testInlineValues},
		{"InlineSpilled", testInlineSpilled},
		{"InlineFold", testInlineFold},
		{"GCBesideSpill", testGCBesideSpill},
		{"ManyWriters", testManyWriters},
		{"ManyWritersLostReplies", testManyWritersLostReplies},
		{"ManyWritersBesideGC", testManyWritersBesideGC},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := faulty.New(newBackend(t))
			s := newStore(f, &objstore.Options{Holder: "suite", LogLimit: 1000})
			c.fn(t, s, f)
		})
	}
}

func tctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func commitPut(t *testing.T, s *objstore.Store, domain, key string, token uint64, data string) objstore.CommitResult {
	t.Helper()
	c, err := s.Commit(tctx(t), domain, token, []objstore.Change{objstore.PutBytes(key, []byte(data))}, nil)
	if err != nil {
		t.Fatalf("commit %s/%s with token %d: %v", domain, key, token, err)
	}
	return c
}

func mustRead(t *testing.T, s *objstore.Store, domain, key, want string) {
	t.Helper()
	got, _, err := s.ReadAll(tctx(t), domain, key)
	if err != nil {
		t.Fatalf("read %s/%s: %v", domain, key, err)
	}
	if string(got) != want {
		t.Fatalf("read %s/%s = %q, want %q", domain, key, got, want)
	}
}

func wantFenced(t *testing.T, err error, token, highest uint64) {
	t.Helper()
	var fe *objstore.FencedError
	if !errors.As(err, &fe) || !errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("err = %v, want a *FencedError", err)
	}
	if fe.Token != token || fe.Highest != highest {
		t.Fatalf("fenced error names tokens %d and %d, want %d and %d", fe.Token, fe.Highest, token, highest)
	}
	if msg := err.Error(); !strings.Contains(msg, fmt.Sprint(token)) || !strings.Contains(msg, fmt.Sprint(highest)) {
		t.Fatalf("message %q does not name both tokens", msg)
	}
}

func testStaleTokenRejected(t *testing.T, s *objstore.Store, _ *faulty.Backend) {
	commitPut(t, s, "d", "k", 42, "from 42")
	_, err := s.Commit(tctx(t), "d", 41, []objstore.Change{objstore.PutBytes("k", []byte("from 41")), objstore.PutBytes("other", []byte("x"))}, nil)
	wantFenced(t, err, 41, 42)
	mustRead(t, s, "d", "k", "from 42")
	if _, _, err := s.ReadAll(tctx(t), "d", "other"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("stale commit's other key: err = %v, want not found", err)
	}
	_, err = s.Delete(tctx(t), "d", "k", 41)
	wantFenced(t, err, 41, 42)
	mustRead(t, s, "d", "k", "from 42")
}

func testEqualTokenAccepted(t *testing.T, s *objstore.Store, _ *faulty.Backend) {
	commitPut(t, s, "d", "k", 7, "one")
	c := commitPut(t, s, "d", "k", 7, "two")
	if c.Highest != 7 || c.Token != 7 {
		t.Fatalf("commit = %+v, want token and highest 7", c)
	}
	mustRead(t, s, "d", "k", "two")
	commitPut(t, s, "d", "k", 8, "three")
	mustRead(t, s, "d", "k", "three")
}

func testFenceOnTakeover(t *testing.T, s *objstore.Store, _ *faulty.Backend) {
	commitPut(t, s, "d", "k", 41, "A")
	fc, err := s.Fence(tctx(t), "d", 42)
	if err != nil {
		t.Fatalf("fence: %v", err)
	}
	if h, err := s.Highest(tctx(t), "d"); err != nil || h != 42 {
		t.Fatalf("highest = %d, %v; want 42", h, err)
	}
	// The old holder is rejected although the new one has written nothing.
	_, err = s.Put(tctx(t), "d", "k", 41, strings.NewReader("late A"), -1)
	wantFenced(t, err, 41, 42)
	mustRead(t, s, "d", "k", "A")
	// A second acquisition given the same token (a coordinator wiped
	// mid-takeover issued it twice) is refused: one token, one holder.
	_, err = s.Fence(tctx(t), "d", 42)
	var fe *objstore.FencedError
	if !errors.As(err, &fe) || fe.Token != 42 || fe.Highest != 42 || fe.ClaimedBy != fc.ID {
		t.Fatalf("second fence at the same token: %v; want fenced, claimed by %s", err, fc.ID)
	}
	// The first fence, retried with its own id, is recognised as landed.
	if again, err := s.Commit(tctx(t), "d", 42, nil, &objstore.CommitOptions{ID: fc.ID}); err != nil || !again.Recovered {
		t.Fatalf("retry of the landed fence: %+v, %v; want recovered", again, err)
	}
	_, err = s.Fence(tctx(t), "d", 40)
	wantFenced(t, err, 40, 42)
	// Fencing a brand-new domain creates its manifest.
	if _, err := s.Fence(tctx(t), "fresh", 5); err != nil {
		t.Fatalf("fence new domain: %v", err)
	}
	_, err = s.Put(tctx(t), "fresh", "k", 4, strings.NewReader("x"), 1)
	wantFenced(t, err, 4, 5)
}

// testRacingCommits: 16 writers race commits with assorted tokens. Exactly
// one commit wins each manifest version, no acknowledged commit is lost,
// and no commit is acknowledged below a token already committed.
func testRacingCommits(t *testing.T, s *objstore.Store, _ *faulty.Backend) {
	const writers, rounds = 16, 4
	type ack struct {
		c    objstore.CommitResult
		data string
	}
	var (
		mu     sync.Mutex
		acks   []ack
		fenced int
		wg     sync.WaitGroup
	)
	start := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for r := range rounds {
				token := uint64(1 + r + w%2) // rising, and many writers share each token
				data := fmt.Sprintf("w%d r%d t%d", w, r, token)
				c, err := s.Commit(tctx(t), "race", token, []objstore.Change{objstore.PutBytes("k", []byte(data))}, nil)
				mu.Lock()
				switch {
				case err == nil:
					acks = append(acks, ack{c, data})
				case errors.Is(err, objstore.ErrFenced):
					fenced++
				default:
					t.Errorf("writer %d: %v", w, err)
				}
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(acks) == 0 {
		t.Fatal("no commit succeeded")
	}
	slices.SortFunc(acks, func(a, b ack) int { return int(a.c.Seq) - int(b.c.Seq) })
	m, err := format.ReadManifest(tctx(t), s.Backend(), "race")
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string]format.LogEntry{}
	for _, e := range m.Log {
		logged[e.ID] = e
	}
	var highest uint64
	for i, a := range acks {
		if i > 0 && a.c.Seq == acks[i-1].c.Seq {
			t.Fatalf("two acknowledged commits share manifest version %d", a.c.Seq)
		}
		if a.c.Token < highest {
			t.Fatalf("commit at seq %d acknowledged with token %d below an earlier committed %d", a.c.Seq, a.c.Token, highest)
		}
		highest = max(highest, a.c.Token)
		if e, ok := logged[a.c.ID]; !ok || e.Seq != a.c.Seq || e.Token != a.c.Token {
			t.Fatalf("acknowledged commit %s (seq %d) missing from the manifest log", a.c.ID, a.c.Seq)
		}
	}
	last := acks[len(acks)-1]
	if m.Highest != highest || m.Seq < last.c.Seq {
		t.Fatalf("manifest highest %d seq %d, acknowledged highest %d last seq %d", m.Highest, m.Seq, highest, last.c.Seq)
	}
	// Every commit that published data was acknowledged: the others are
	// the fences with which first commits create the manifest.
	if m.Log[0].Seq != 1 {
		t.Fatalf("log truncated at seq %d; the suite's log limit is too small", m.Log[0].Seq)
	}
	acked := map[string]bool{}
	for _, a := range acks {
		acked[a.c.ID] = true
	}
	for _, e := range m.Log {
		if e.Puts > 0 && !acked[e.ID] {
			t.Fatalf("commit %s (seq %d, token %d) was applied but not acknowledged", e.ID, e.Seq, e.Token)
		}
	}
	mustRead(t, s, "race", "k", last.data)
	t.Logf("%d acknowledged, %d fenced", len(acks), fenced)
}

func testDroppedReplyResolved(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 1, "before")
	f.Add(manifestPut("d", faulty.Fault{ErrAfter: errInjected}))
	c, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("after"))}, nil)
	if err != nil {
		t.Fatalf("commit whose reply was dropped: %v (want success found by reading back)", err)
	}
	if !c.Recovered {
		t.Fatalf("commit = %+v, want Recovered", c)
	}
	mustRead(t, s, "d", "k", "after")
	m, _ := format.ReadManifest(tctx(t), s.Backend(), "d")
	if n := countID(m, c.ID); n != 1 {
		t.Fatalf("commit applied %d times, want once", n)
	}
}

func countID(m *format.Manifest, id string) int {
	n := 0
	for _, e := range m.Log {
		if e.ID == id {
			n++
		}
	}
	return n
}

// testReplyReplacedBy503: the write landed, its reply became a 503, and a
// competing holder fenced the domain before the read-back. The commit must
// be reported as applied, never as fenced.
func testReplyReplacedBy503(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 1, "before")
	other := newStore(f.Unwrap(), nil)
	f.Add(manifestPut("d", faulty.Fault{ErrAfter: errInjected, Then: func() {
		if _, err := other.Fence(context.Background(), "d", 3); err != nil {
			t.Errorf("competing fence: %v", err)
		}
	}}))
	c, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("mine"))}, nil)
	if err != nil || !c.Recovered {
		t.Fatalf("commit = %+v, %v; want success recovered by reading back", c, err)
	}
	mustRead(t, s, "d", "k", "mine")
	// A retry with the same id after the domain moved on reports the
	// commit as applied, not as fenced, and applies nothing again.
	c2, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("mine"))}, &objstore.CommitOptions{ID: c.ID})
	if err != nil || !c2.Recovered || c2.Seq != c.Seq {
		t.Fatalf("retry of an applied commit after a fence: %+v, %v; want recovered success at seq %d", c2, err, c.Seq)
	}
	m, _ := format.ReadManifest(tctx(t), s.Backend(), "d")
	if n := countID(m, c.ID); n != 1 {
		t.Fatalf("commit applied %d times", n)
	}
}

// errRetried412 is the reply an SDK or proxy that retries a write after
// losing its reply gets when the first attempt had applied: the retry's
// If-Match no longer holds.
var errRetried412 = fmt.Errorf("objstoretest: retried write answered 412: %w", driver.ErrPreconditionFailed)

// testReplyReplacedBy412: the write landed and its reply was lost; the
// client underneath retried it and got 412. The commit is found in the
// manifest's log and reported as applied.
func testReplyReplacedBy412(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 1, "before")
	f.Add(manifestPut("d", faulty.Fault{ErrAfter: errRetried412}))
	c, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("mine"))}, nil)
	if err != nil || !c.Recovered {
		t.Fatalf("commit = %+v, %v; want success recovered by reading back", c, err)
	}
	mustRead(t, s, "d", "k", "mine")
}

// testReplyReplacedBy412LogMovedOn replays what the fault suite found: the
// write landed, its reply was lost, the SDK retried and got 412, and by
// the time the store read back, a new holder had fenced the domain and
// committed more times than the manifest's log keeps. The commit cannot be
// found, but it may have landed: the outcome is unknown, never fenced.
func testReplyReplacedBy412LogMovedOn(t *testing.T, _ *objstore.Store, f *faulty.Backend) {
	const logLimit = 4
	s := newStore(f, &objstore.Options{Holder: "suite", LogLimit: logLimit})
	other := newStore(f.Unwrap(), &objstore.Options{Holder: "other", LogLimit: logLimit})
	commitPut(t, s, "d", "k", 1, "before")
	f.Add(manifestPut("d", faulty.Fault{ErrAfter: errRetried412, Then: func() {
		for i := range logLimit + 2 {
			if _, err := other.Commit(context.Background(), "d", 3, []objstore.Change{objstore.PutBytes("k", []byte(fmt.Sprint("other ", i)))}, nil); err != nil {
				t.Errorf("competing commit: %v", err)
			}
		}
	}}))
	_, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("mine"))}, nil)
	var ue *objstore.UnknownOutcomeError
	if !errors.As(err, &ue) || ue.CommitID == "" {
		t.Fatalf("commit whose write landed and whose record left the log: %v; want outcome unknown with a commit id", err)
	}
	if errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("a commit that landed was reported fenced: %v", err)
	}
}

// testFenceRetriedAfterLogMovedOn: a new holder's fence is answered 412
// while the old holder commits faster than the log keeps. A fence may be
// written again (twice changes nothing), so it is retried and lands,
// rather than ending unknown as a data commit must.
func testFenceRetriedAfterLogMovedOn(t *testing.T, _ *objstore.Store, f *faulty.Backend) {
	const logLimit = 4
	s := newStore(f, &objstore.Options{Holder: "suite", LogLimit: logLimit})
	old := newStore(f.Unwrap(), &objstore.Options{Holder: "old", LogLimit: logLimit})
	commitPut(t, s, "d", "k", 1, "before")
	f.Add(faulty.Rule{Op: faulty.OpPut, Key: format.ManifestKey("d"), Func: func(context.Context, faulty.Call) faulty.Fault {
		for i := range logLimit + 2 {
			if _, err := old.Commit(context.Background(), "d", 1, []objstore.Change{objstore.PutBytes("k", []byte(fmt.Sprint("old ", i)))}, nil); err != nil {
				t.Errorf("old holder's commit: %v", err)
			}
		}
		return faulty.Fault{Err: errRetried412}
	}})
	c, err := s.Fence(tctx(t), "d", 2)
	if err != nil {
		t.Fatalf("fence after a 412 and a log that moved on: %v; want it written again", err)
	}
	if c.Highest != 2 {
		t.Fatalf("fence = %+v, want highest token 2", c)
	}
	if _, err := old.Commit(tctx(t), "d", 1, []objstore.Change{objstore.PutBytes("k", []byte("late"))}, nil); !errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("old holder after the fence: %v, want fenced", err)
	}
}

func testConflictRetried(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 1, "before")
	f.Add(manifestPut("d", faulty.Fault{Err: conflictErr}))
	f.Add(manifestPut("d", faulty.Fault{Err: conflictErr}))
	c := commitPut(t, s, "d", "k", 1, "after")
	if c.Recovered {
		t.Fatalf("a 409 applies nothing; commit should not be recovered: %+v", c)
	}
	mustRead(t, s, "d", "k", "after")
}

func testOutcomeUnknown(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 1, "before")
	gate := make(chan struct{})
	f.Add(faulty.Always(faulty.OpPut, format.ManifestKey("d"), faulty.Fault{Err: errInjected, Pause: gate}))
	close(gate)
	c, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := s.Commit(c, "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("lost?"))}, nil)
	var ue *objstore.UnknownOutcomeError
	if !errors.Is(err, objstore.ErrOutcomeUnknown) || !errors.As(err, &ue) || ue.CommitID == "" {
		t.Fatalf("err = %v, want outcome unknown with a commit id", err)
	}
	if errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("unknown outcome reported as fenced: %v", err)
	}
	f.Clear()
	// Retrying with the same id applies it exactly once.
	if _, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("k", []byte("lost?"))}, &objstore.CommitOptions{ID: ue.CommitID}); err != nil {
		t.Fatalf("retry: %v", err)
	}
	mustRead(t, s, "d", "k", "lost?")
	m, _ := format.ReadManifest(tctx(t), s.Backend(), "d")
	if n := countID(m, ue.CommitID); n != 1 {
		t.Fatalf("commit applied %d times", n)
	}
}

// testPausedMidCommit: the stale-holder scenario inside one commit. Holder
// A has uploaded its data and is paused before its manifest write; B fences
// and commits; A resumes and must be rejected.
func testPausedMidCommit(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 41, "A1")
	gate := make(chan struct{})
	paused := make(chan struct{})
	f.Add(faulty.Rule{Op: faulty.OpPut, Key: format.ManifestKey("d"), Func: func(context.Context, faulty.Call) faulty.Fault {
		close(paused)
		return faulty.Fault{Pause: gate}
	}})
	done := make(chan error, 1)
	go func() {
		_, err := s.Put(context.Background(), "d", "k", 41, strings.NewReader("A2 late"), -1)
		done <- err
	}()
	<-paused
	b := newStore(f.Unwrap(), nil)
	if _, err := b.Fence(tctx(t), "d", 42); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(tctx(t), "d", "k", 42, strings.NewReader("B"), 1); err != nil {
		t.Fatal(err)
	}
	close(gate)
	wantFenced(t, <-done, 41, 42)
	mustRead(t, s, "d", "k", "B")
}

func testCorruptManifest(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	bodies := map[string]string{
		"empty":          "",
		"not json":       "{not json",
		"unknown format": `{"format":"fence.manifest/v99","domain":"d","highest_token":5,"seq":1}`,
		"token 0":        `{"format":"fence.manifest/v1","domain":"d","highest_token":0,"seq":1}`,
		"other domain":   `{"format":"fence.manifest/v1","domain":"e","highest_token":5,"seq":1}`,
	}
	for name, body := range bodies {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			key := format.ManifestKey("d")
			if _, err := f.Unwrap().Put(tctx(t), key, strings.NewReader(body), int64(len(body)), driver.PutOptions{}); err != nil {
				t.Fatal(err)
			}
			check := func(op string, err error) {
				t.Helper()
				var ce *objstore.CorruptManifestError
				if !errors.Is(err, objstore.ErrCorruptManifest) || !errors.As(err, &ce) || ce.Key != key {
					t.Fatalf("%s over a %s manifest: err = %v, want a corrupt-manifest error naming %q", op, name, err, key)
				}
			}
			_, err := s.Put(tctx(t), "d", "k", 9, strings.NewReader("x"), 1)
			check("put", err)
			_, err = s.Fence(tctx(t), "d", 9)
			check("fence", err)
			_, err = s.Highest(tctx(t), "d")
			check("highest", err)
			_, _, err = s.ReadAll(tctx(t), "d", "k")
			check("read", err)
			rc, _, err := f.Unwrap().Get(tctx(t), key, driver.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(rc)
			rc.Close()
			if string(got) != body {
				t.Fatalf("corrupt manifest was overwritten: %q", got)
			}
		})
	}
}

func testMissingManifest(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	commitPut(t, s, "d", "k", 42, "B")
	if err := f.Unwrap().Delete(tctx(t), format.ManifestKey("d")); err != nil {
		t.Fatal(err)
	}
	// A store that saw the manifest, and a fresh one that did not, both
	// refuse to treat the domain as new.
	fresh := newStore(f.Unwrap(), nil)
	for name, st := range map[string]*objstore.Store{"same store": s, "fresh store": fresh} {
		_, err := st.Put(tctx(t), "d", "k", 43, strings.NewReader("after loss"), -1)
		if !errors.Is(err, objstore.ErrCorruptManifest) {
			t.Fatalf("%s: commit after the manifest was lost: err = %v, want fail closed", name, err)
		}
	}
	_, err := fresh.Put(tctx(t), "d", "k", 41, strings.NewReader("stale"), -1)
	if !errors.Is(err, objstore.ErrCorruptManifest) {
		t.Fatalf("stale commit after the manifest was lost: err = %v, want fail closed", err)
	}
	if _, err := fresh.Highest(tctx(t), "d"); !errors.Is(err, objstore.ErrCorruptManifest) {
		t.Fatalf("highest after the manifest was lost: err = %v, want fail closed (never 0)", err)
	}
}

func testAtomicMultiKey(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	changes := func(gen string) []objstore.Change {
		var out []objstore.Change
		for i := range 20 {
			out = append(out, objstore.PutBytes(fmt.Sprintf("part-%02d", i), []byte(fmt.Sprint(gen, i))))
		}
		return out
	}
	if _, err := s.Commit(tctx(t), "d", 1, changes("v1 "), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(tctx(t), "d", 1, append(changes("x "), objstore.DeleteKey("part-00")), nil); !errors.Is(err, objstore.ErrInvalid) {
		t.Fatalf("commit with a key both put and deleted: %v, want invalid", err)
	}
	// A commit that uploads all its versions and is then fenced publishes
	// none of them.
	gate, paused := make(chan struct{}), make(chan struct{})
	f.Add(faulty.Rule{Op: faulty.OpPut, Key: format.ManifestKey("d"), Func: func(context.Context, faulty.Call) faulty.Fault {
		close(paused)
		return faulty.Fault{Pause: gate}
	}})
	done := make(chan error, 1)
	go func() {
		_, err := s.Commit(context.Background(), "d", 1, changes("stale "), nil)
		done <- err
	}()
	<-paused
	if _, err := newStore(f.Unwrap(), nil).Fence(tctx(t), "d", 2); err != nil {
		t.Fatal(err)
	}
	close(gate)
	wantFenced(t, <-done, 1, 2)
	vs, err := s.List(tctx(t), "d", nil)
	if err != nil || len(vs) != 20 {
		t.Fatalf("list = %d keys, %v", len(vs), err)
	}
	for i, v := range vs {
		mustRead(t, s, "d", v.Key, fmt.Sprint("v1 ", i))
	}
	c, err := s.Commit(tctx(t), "d", 2, changes("v2 "), nil)
	if err != nil || len(c.Versions) != 20 {
		t.Fatalf("commit = %d versions, %v", len(c.Versions), err)
	}
	sn, err := s.Snapshot(tctx(t), "d")
	if err != nil {
		t.Fatal(err)
	}
	listed, err := sn.List(tctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range listed {
		if got, _, err := sn.ReadAll(tctx(t), v.Key); err != nil || string(got) != fmt.Sprint("v2 ", i) {
			t.Fatalf("after the commit, %s = %q, %v", v.Key, got, err)
		}
	}
}

func testSnapshotPinned(t *testing.T, s *objstore.Store, _ *faulty.Backend) {
	commitPut(t, s, "d", "a", 1, "a1")
	commitPut(t, s, "d", "b", 1, "b1")
	sn, err := s.Snapshot(tctx(t), "d")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(tctx(t), "d", 2, []objstore.Change{objstore.PutBytes("a", []byte("a2")), objstore.PutBytes("b", []byte("b2"))}, nil); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"a": "a1", "b": "b1"} {
		got, _, err := sn.ReadAll(tctx(t), k)
		if err != nil || string(got) != want {
			t.Fatalf("snapshot read %s = %q, %v; want %q", k, got, err, want)
		}
	}
	if listed, err := sn.List(tctx(t), nil); sn.Highest() != 1 || len(listed) != 2 || err != nil {
		t.Fatalf("snapshot highest %d, %d keys, %v", sn.Highest(), len(listed), err)
	}
	mustRead(t, s, "d", "a", "a2")
}

func testDelete(t *testing.T, s *objstore.Store, _ *faulty.Backend) {
	commitPut(t, s, "d", "k", 3, "x")
	if _, err := s.Delete(tctx(t), "d", "k", 3); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ReadAll(tctx(t), "d", "k"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("read deleted key: %v", err)
	}
	vs, err := s.List(tctx(t), "d", nil)
	if err != nil || len(vs) != 0 {
		t.Fatalf("list after delete = %v, %v", vs, err)
	}
	if _, err := s.List(tctx(t), "never", nil); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("list of a domain never written: %v, want not found", err)
	}
}

func testIntegrity(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	c := commitPut(t, s, "d", "k", 1, "genuine")
	tamper(t, f.Unwrap(), "d", c.Versions[0], "tampere")
	if _, _, err := s.ReadAll(tctx(t), "d", "k"); !errors.Is(err, objstore.ErrIntegrity) {
		t.Fatalf("read of a tampered version: err = %v, want ErrIntegrity", err)
	}
}

func testInvalidInput(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	bad := []struct {
		domain, key string
		token       uint64
	}{
		{"d", "k", 0},
		{"d", "k", objstore.MaxToken + 1},
		{"", "k", 1},
		{"/d", "k", 1},
		{"d", "", 1},
		{"d", "a/../b", 1},
		{"d", "a\x00b", 1},
		{"d", "_fence/manifest.json", 1},
		{"d", "k@00000000000000000001-x", 1},
		{"d", strings.Repeat("k", 1025), 1},
	}
	for _, b := range bad {
		_, err := s.Put(tctx(t), b.domain, b.key, b.token, strings.NewReader("x"), 1)
		var ie *objstore.InvalidError
		if !errors.Is(err, objstore.ErrInvalid) || !errors.As(err, &ie) {
			t.Errorf("put(%q, %q, %d): err = %v, want an invalid-argument error", b.domain, b.key, b.token, err)
		}
	}
	n := 0
	if err := f.Unwrap().List(tctx(t), "", func(driver.ObjectInfo) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("rejected writes left %d objects", n)
	}
}

func testDomainsIndependent(t *testing.T, s *objstore.Store, _ *faulty.Backend) {
	commitPut(t, s, "reports", "k", 100, "r")
	commitPut(t, s, "reports/monthly", "k", 1, "m") // nested domain, own tokens
	commitPut(t, s, "reports", "monthly/k", 100, "r2")
	mustRead(t, s, "reports/monthly", "k", "m")
	mustRead(t, s, "reports", "monthly/k", "r2")
	vs, _ := s.List(tctx(t), "reports", nil)
	if len(vs) != 2 {
		t.Fatalf("domain reports lists %d keys, want 2", len(vs))
	}
}

// testLargeDomainRacing: writers race commits on a domain large enough to
// be kept in shards, so folds happen under contention. Every acknowledged
// key reads back with its bytes, in one snapshot with every other.
func testLargeDomainRacing(t *testing.T, s *objstore.Store, _ *faulty.Backend) {
	var first []objstore.Change
	want := map[string]string{}
	for i := range 600 {
		k := fmt.Sprintf("base/%03d", i)
		first = append(first, objstore.PutBytes(k, []byte(k)))
		want[k] = k
	}
	if _, err := s.Commit(tctx(t), "big", 1, first, nil); err != nil {
		t.Fatal(err)
	}
	const writers, rounds, batch = 6, 4, 30
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				var changes []objstore.Change
				got := map[string]string{}
				for i := range batch {
					k := fmt.Sprintf("w%d/r%d/%02d", w, r, i)
					changes = append(changes, objstore.PutBytes(k, []byte(k)))
					got[k] = k
				}
				if r > 0 {
					// Also delete one key of the previous round.
					k := fmt.Sprintf("w%d/r%d/%02d", w, r-1, 0)
					changes = append(changes, objstore.DeleteKey(k))
				}
				if _, err := s.Commit(tctx(t), "big", 1, changes, nil); err != nil {
					t.Errorf("writer %d round %d: %v", w, r, err)
					return
				}
				mu.Lock()
				for k, v := range got {
					want[k] = v
				}
				if r > 0 {
					delete(want, fmt.Sprintf("w%d/r%d/%02d", w, r-1, 0))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	fresh := newStore(s.Backend(), nil)
	sn, err := fresh.Snapshot(tctx(t), "big")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sn.List(tctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(want) {
		t.Fatalf("snapshot lists %d keys, want %d", len(vs), len(want))
	}
	for _, v := range vs {
		data, _, err := sn.ReadAll(tctx(t), v.Key)
		if err != nil || string(data) != want[v.Key] {
			t.Fatalf("read %q = %q, %v; want %q", v.Key, data, err, want[v.Key])
		}
	}
	m, _ := format.ReadManifest(tctx(t), fresh.Backend(), "big")
	if len(m.Shards) == 0 {
		t.Fatal("the domain was never folded into shards; the case proves nothing")
	}
}
