package faults

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/internal/format"
)

// These tests run without servers: they check that the model and the
// invariant checks accept correct histories and catch broken ones, so
// that a green fault run means something.

var unitKeys = []string{"k0", "k1"}

// hb builds a history of one domain, "d", one operation at a time.
type hb struct {
	ops  []*op
	next int64
}

func (b *hb) add(client, opName string, call, ret int64, in hist.Input, outcome string, out hist.Output) *op {
	b.next++
	in.Domain = "d"
	o := &op{Record: hist.Record{Client: client, Op: opName, ID: b.next, Call: call, Return: ret, In: in, Out: out, Outcome: outcome}}
	if ret == 0 {
		o.pending = true
	}
	b.ops = append(b.ops, o)
	return o
}

func (b *hb) fence(client string, token uint64, call, ret int64, outcome string) *op {
	return b.add(client, hist.OpAcquire, call, ret, hist.Input{}, outcome, hist.Output{Token: token, Fence: outcome})
}

func (b *hb) commit(tag string, token uint64, call, ret int64, outcome string, seq uint64, puts map[string]string) *op {
	client, _, _ := strings.Cut(tag, "#")
	return b.add(client, hist.OpCommit, call, ret, hist.Input{Token: token, Puts: puts, Tag: tag}, outcome, hist.Output{Seq: seq, CommitID: "id-" + strings.ReplaceAll(tag, "#", "-")})
}

func (b *hb) read(client string, call, ret int64, seq, highest uint64, vals map[string]string) *op {
	return b.add(client, hist.OpRead, call, ret, hist.Input{}, hist.OK, hist.Output{Seq: seq, Highest: highest, Values: vals})
}

func (b *hb) issue(client string, token uint64, call, ret int64) {
	b.add(client, hist.OpIssue, call, ret, hist.Input{}, hist.OK, hist.Output{Token: token})
}

// recordOf builds the store's record of domain "d" from manifest writes,
// each given as (holder, commit id, token, puts).
type write struct {
	holder, id string
	token      uint64
	puts       []string
}

func recordOf(writes ...write) *domainRecord {
	batches := make([][]write, len(writes))
	for i, w := range writes {
		batches[i] = []write{w}
	}
	return recordOfBatches(batches...)
}

// recordOfBatches is recordOf with several commits in one manifest
// write, as the store's group commit makes them: each batch is one write
// that applies its commits in order, each with its own log entry and seq.
func recordOfBatches(batches ...[]write) *domainRecord {
	d := newDomainRecord("d")
	m := &format.Manifest{Format: format.ManifestV1, Domain: "d", Keys: map[string]format.Entry{}}
	for i, batch := range batches {
		for _, w := range batch {
			n := &format.Manifest{Format: m.Format, Domain: "d", Highest: max(m.Highest, w.token), Seq: m.Seq + 1, Keys: map[string]format.Entry{}}
			for k, e := range m.Keys {
				n.Keys[k] = e
			}
			for _, k := range w.puts {
				vk := format.VersionKey("d", k, w.token, w.id)
				n.Keys[k] = format.Entry{Version: vk, Token: w.token}
				d.versions[vk] = 1
			}
			n.Last = format.LogEntry{Seq: n.Seq, ID: w.id, Token: w.token, Holder: w.holder, Time: time.Unix(int64(i), 0), Puts: len(w.puts)}
			n.Log = append(append([]format.LogEntry(nil), m.Log...), n.Last)
			m = n
		}
		d.writes = append(d.writes, manifestWrite{versionID: fmt.Sprint(i), modified: time.Unix(int64(i), 0), m: m})
	}
	d.index()
	return d
}

func checkRegister(t *testing.T, b *hb, rec *domainRecord) (string, []violation) {
	t.Helper()
	h := &history{ops: b.ops}
	reg, vs := resolve(h, map[string]*domainRecord{"d": rec})
	parts := partitions(reg, h, []string{"d"}, unitKeys)
	res := check(parts, 10*time.Second)
	return res[0].Result + "/" + res[1].Result, vs
}

// A correct history: two holders, a takeover, a stale commit fenced,
// reads in between, and an unknown commit that the record shows applied.
func correctHistory() (*hb, *domainRecord) {
	b := &hb{}
	b.issue("a", 1, 0, 5)
	b.fence("a", 1, 0, 10, hist.OK)
	b.commit("a#2", 1, 11, 20, hist.OK, 2, map[string]string{"k0": "a2"})
	b.read("r", 21, 25, 2, 1, map[string]string{"k0": "a2"})
	b.issue("b", 2, 30, 35)
	b.fence("b", 2, 30, 40, hist.OK)
	b.commit("a#3", 1, 41, 50, hist.Fenced, 0, map[string]string{"k1": "a3"}).Out.Highest = 2
	u := b.commit("b#2", 2, 51, 60, hist.Unknown, 0, map[string]string{"k1": "b2"})
	u.Out.CommitID = ""
	b.read("r", 61, 65, 4, 2, map[string]string{"k0": "a2", "k1": "b2"})
	rec := recordOf(
		write{"a", "f1", 1, nil},
		write{"a#2", "id-a-2", 1, []string{"k0"}},
		write{"b", "f2", 2, nil},
		write{"b#2", "id-b-2", 2, []string{"k1"}},
	)
	return b, rec
}

func TestModelAcceptsCorrectHistory(t *testing.T) {
	b, rec := correctHistory()
	got, vs := checkRegister(t, b, rec)
	if got != "ok/ok" || len(vs) != 0 {
		t.Fatalf("got %s, violations %v; want ok/ok and none", got, vs)
	}
	h := &history{ops: b.ops}
	reg, _ := resolve(h, map[string]*domainRecord{"d": rec})
	recs := map[string]*domainRecord{"d": rec}
	final := map[string]map[string]string{"d": {"k0": format.VersionKey("d", "k0", 1, "id-a-2"), "k1": format.VersionKey("d", "k1", 2, "id-b-2")}}
	vals := map[string]map[string]string{"d": {"k0": "a2", "k1": "b2"}}
	for name, vs := range map[string][]violation{
		"I1": checkI1(reg, recs), "I2": checkI2(h, recs), "I3": checkI3(h, recs, final),
		"I4": checkI4(h, recs, final, vals, nil), "I5": checkI5(h, map[string]uint64{"d": 2}), "I6": checkI6(recs, nil),
	} {
		if len(vs) != 0 {
			t.Errorf("%s: %v", name, vs)
		}
	}
	s := measureStaleness(h, reg)
	if s.Windows != 1 || s.CommitsAttempt != 1 || s.CommitsAccepted != 0 || s.FencedByStore != 1 {
		t.Errorf("staleness %+v: want one window and one stale commit, fenced", s)
	}
}

func TestModelCatchesStaleCommitAccepted(t *testing.T) {
	b, _ := correctHistory()
	b.ops[6].Outcome = hist.OK // a#3 with token 1, after b fenced at 2
	b.ops[6].Out.Seq = 4
	rec := recordOf(
		write{"a", "f1", 1, nil},
		write{"a#2", "id-a-2", 1, []string{"k0"}},
		write{"b", "f2", 2, nil},
		write{"a#3", "id-a-3", 1, []string{"k1"}},
		write{"b#2", "id-b-2", 2, []string{"k1"}},
	)
	got, _ := checkRegister(t, b, rec)
	if !strings.HasPrefix(got, "illegal") {
		t.Fatalf("porcupine: %s, want illegal", got)
	}
	h := &history{ops: b.ops}
	reg, _ := resolve(h, map[string]*domainRecord{"d": rec})
	if vs := checkI1(reg, map[string]*domainRecord{"d": rec}); len(vs) == 0 {
		t.Fatal("I1 did not catch a stale commit that was acknowledged")
	}
}

func TestChecksCatchLostWrite(t *testing.T) {
	// An unconditional write: b's fence is overwritten by a stale manifest
	// based on seq 2.
	rec := recordOf(
		write{"a", "f1", 1, nil},
		write{"a#2", "id-a-2", 1, []string{"k0"}},
		write{"b", "f2", 2, nil},
	)
	stale := *rec.writes[1].m
	stale.Seq, stale.Highest = 3, 1
	stale.Last = format.LogEntry{Seq: 3, ID: "id-a-3", Token: 1, Holder: "a#3", Puts: 1}
	stale.Keys = map[string]format.Entry{"k0": rec.writes[1].m.Keys["k0"], "k1": {Version: format.VersionKey("d", "k1", 1, "id-a-3"), Token: 1}}
	rec.writes = append(rec.writes, manifestWrite{versionID: "3", m: &stale})
	rec.index()
	rec.versions[format.VersionKey("d", "k1", 1, "id-a-3")] = 1
	recs := map[string]*domainRecord{"d": rec}
	h := &history{}
	if vs := checkI2(h, recs); len(vs) == 0 {
		t.Error("I2 did not catch the highest token going down")
	}
	if vs := checkI4(h, recs, nil, nil, nil); len(vs) == 0 {
		t.Error("I4 did not catch an overwritten manifest write")
	}
	if vs := checkI1(nil, recs); len(vs) == 0 {
		t.Error("I1 did not catch a commit below the highest token in the record")
	}
	if vs := checkI3(h, recs, nil); len(vs) == 0 {
		t.Error("I3 did not catch a stale version published")
	}
}

func TestResolve(t *testing.T) {
	b := &hb{}
	b.fence("a", 1, 0, 10, hist.OK)
	b.commit("a#2", 1, 11, 0, "", 0, map[string]string{"k0": "x"}) // pending: the process died
	b.commit("a#3", 1, 20, 30, hist.OK, 3, map[string]string{"k0": "y"}).Out.CommitID = "gone"
	b.commit("a#4", 1, 31, 40, hist.Fenced, 0, map[string]string{"k0": "z"})
	rec := recordOf(
		write{"a", "f1", 1, nil},
		write{"a#2", "id-a-2", 1, []string{"k0"}},
		write{"a#4", "id-a-4", 1, []string{"k0"}},
		write{"someone", "stray", 1, nil},
	)
	_, vs := resolve(&history{ops: b.ops}, map[string]*domainRecord{"d": rec})
	if !b.ops[1].applied || b.ops[1].seq != 2 {
		t.Errorf("the pending commit was not resolved from the record: applied %v seq %d", b.ops[1].applied, b.ops[1].seq)
	}
	if b.ops[1].retBound != 30 {
		t.Errorf("the pending commit's return bound is %d, want 30 (when a#3 returned having seen seq 3)", b.ops[1].retBound)
	}
	want := map[string]bool{"I4": false, "X1": false, "X2": false}
	for _, v := range vs {
		want[v.check] = true
	}
	for c, ok := range want {
		if !ok {
			t.Errorf("resolve did not report %s; got %v", c, vs)
		}
	}
}

func TestTokenModel(t *testing.T) {
	ops := func(tokens ...uint64) []porcupine.Operation {
		var out []porcupine.Operation
		for i, tok := range tokens {
			out = append(out, porcupine.Operation{ClientId: i, Input: "c", Output: tok, Call: int64(10 * i), Return: int64(10*i + 5)})
		}
		return out
	}
	if !porcupine.CheckOperations(tokenModel, ops(1, 2, 5)) {
		t.Error("increasing tokens rejected")
	}
	if porcupine.CheckOperations(tokenModel, ops(1, 2, 2)) {
		t.Error("a token issued twice accepted")
	}
	// Concurrent issues may linearize in either order.
	conc := []porcupine.Operation{
		{ClientId: 0, Input: "a", Output: uint64(2), Call: 0, Return: 10},
		{ClientId: 1, Input: "b", Output: uint64(1), Call: 1, Return: 9},
	}
	if !porcupine.CheckOperations(tokenModel, conc) {
		t.Error("concurrent issues rejected")
	}
	b := &hb{}
	b.issue("a", 3, 0, 5)
	b.issue("b", 3, 10, 15)
	if vs := checkI5(&history{ops: b.ops}, map[string]uint64{"d": 1}); len(vs) != 2 {
		t.Errorf("I5: %v, want a token issued twice and a counter below it", vs)
	}
}

func TestBoundUnknownIsInfinite(t *testing.T) {
	o := &op{Record: hist.Record{Op: hist.OpCommit, Call: 5, In: hist.Input{Domain: "d"}}, pending: true, applied: true, seq: 9}
	bound([]*op{o})
	if o.retBound != math.MaxInt64 {
		t.Fatalf("an applied write nobody observed has return bound %d, want +infinity", o.retBound)
	}
}

// TestChecksDeletions: the collector's deletions are judged by the
// manifest current when each delete marker was written (I9), and a reader
// that met a version deleted under its snapshot is excused only if that
// deletion was right (I4).
func TestChecksDeletions(t *testing.T) {
	rec := recordOf(
		write{"a", "f1", 1, nil},                        // seq 1, time 0
		write{"a#2", "id-a-2", 1, []string{"k0"}},       // seq 2, time 1
		write{"a#3", "id-a-3", 1, []string{"k0"}},       // seq 3, time 2: supersedes id-a-2's k0
		write{"b", "f2", 2, nil},                        // seq 4, time 3
		write{"b#2", "id-b-2", 2, []string{"k0", "k1"}}, // seq 5, time 4
	)
	superseded := format.VersionKey("d", "k0", 1, "id-a-2")
	stale := format.VersionKey("d", "k1", 1, "id-stale") // never published, token 1 < 2
	pending := format.VersionKey("d", "k1", 2, "id-b-2") // published at seq 5 (time 4)
	live := format.VersionKey("d", "k0", 2, "id-b-2")
	rec.versions[stale] = 1
	rec.deleted[superseded] = time.Unix(2, 500)
	rec.deleted[stale] = time.Unix(3, 0)
	rec.deleted[pending] = time.Unix(3, 500) // before seq 5 published it: wrong
	rec.deleted[live] = time.Unix(5, 0)      // while seq 5 names it: wrong
	dels := judgeDeletions(rec)
	for obj, want := range map[string]bool{superseded: true, stale: true, pending: false, live: false} {
		if got := dels[obj].ok; got != want {
			t.Errorf("deletion of %s judged ok=%v (%s), want %v", obj, got, dels[obj].why, want)
		}
	}
	all := map[string]map[string]deletion{"d": dels}
	if vs := checkI9(all); len(vs) != 2 {
		t.Errorf("I9: %v, want the two wrong deletions", vs)
	}
	b := &hb{}
	missing := func(client, obj string) {
		b.add(client, hist.OpRead, 10, 20, hist.Input{}, hist.Fail, hist.Output{Seq: 2, Class: hist.ClassMissing, Missing: map[string]string{"k0": obj}})
	}
	missing("r0", superseded)                              // excused
	missing("r1", format.VersionKey("d", "k0", 1, "gone")) // never deleted
	missing("r2", live)                                    // deleted wrongly
	vs := checkI4(&history{ops: b.ops}, map[string]*domainRecord{"d": rec}, nil, nil, all)
	var readers []string
	for _, v := range vs {
		if strings.Contains(v.detail, " read d/") {
			readers = append(readers, v.detail[:2])
		}
	}
	if strings.Join(readers, ",") != "r1,r2" {
		t.Errorf("I4 blamed readers %v, want r1,r2 (r0 read a version superseded and rightly deleted): %v", readers, vs)
	}
	// A dead version written again after its deletion is no rewrite; one
	// written twice without a deletion between is.
	rec.versions[superseded], rec.versionTimes[superseded] = 2, []time.Time{time.Unix(1, 0), time.Unix(4, 0)}
	twice := format.VersionKey("d", "k0", 1, "id-a-3")
	rec.versions[twice], rec.versionTimes[twice] = 2, []time.Time{time.Unix(2, 0), time.Unix(2, 1)}
	if vs := checkI6(map[string]*domainRecord{"d": rec}, all); len(vs) != 1 || !strings.Contains(vs[0].detail, "id-a-3") {
		t.Errorf("I6: %v, want only the version written twice", vs)
	}
}

// TestChecksOneHolderPerToken: two holders at one token is caught, in
// the history and in the record; one holder's committers are one holder.
func TestChecksOneHolderPerToken(t *testing.T) {
	for in, want := range map[string]string{"w3#12": "w3", "w3.g1#4": "w3", "w3.1#2": "w3.1", "w3.1.g0#5": "w3.1", "taker-1": "taker-1", "probe-d1/nested#2": "probe-d1/nested"} {
		if got := holderOf(in); got != want {
			t.Errorf("holderOf(%q) = %q, want %q", in, got, want)
		}
	}
	ok := recordOf(write{"w0", "f1", 1, nil}, write{"w0.g1#2", "c1", 1, []string{"k0"}}, write{"w1", "f2", 2, nil})
	if vs := checkI10(&history{}, map[string]*domainRecord{"d": ok}); len(vs) != 0 {
		t.Errorf("I10 on one holder per token: %v", vs)
	}
	two := recordOf(write{"w0", "f1", 1, nil}, write{"w1#3", "c1", 1, []string{"k0"}})
	b := &hb{}
	b.fence("w0", 1, 0, 10, hist.OK)
	b.fence("w1", 1, 5, 15, hist.OK)
	if vs := checkI10(&history{ops: b.ops}, map[string]*domainRecord{"d": two}); len(vs) != 2 {
		t.Errorf("I10: %v, want two violations (history and record)", vs)
	}
	// A fence refused as claimed is legal in the model at its own token.
	c := &hb{}
	c.issue("a", 1, 0, 1)
	c.fence("a", 1, 0, 10, hist.OK)
	c.issue("b", 1, 2, 3)
	c.fence("b", 1, 2, 20, hist.Fenced).Out.ClaimedBy = "f1"
	c.ops[3].Out.Highest = 1
	if got, _ := checkRegister(t, c, recordOf(write{"a", "f1", 1, nil})); !strings.HasPrefix(got, "ok/") {
		t.Errorf("a fence refused as claimed: porcupine %s, want ok", got)
	}
}

// TestChecksNoFenceClaim: holders that acquired without a fence at a
// token issued twice (a wiped coordinator) are judged by their commits:
// the first commit at the token applies and the other holder's, refused
// as claimed, is legal in the model at its own token; had it applied
// too, I10 finds two holders at one token in the store's record, and
// the two acquisitions alone are no violation (neither fenced).
func TestChecksNoFenceClaim(t *testing.T) {
	b := &hb{}
	b.fence("w0", 1, 0, 10, hist.OK)
	b.issue("a", 2, 11, 12)
	b.add("a", hist.OpAcquire, 11, 13, hist.Input{NoFence: true}, hist.OK, hist.Output{Token: 2})
	b.issue("b", 2, 14, 15)
	b.add("b", hist.OpAcquire, 14, 16, hist.Input{NoFence: true}, hist.OK, hist.Output{Token: 2})
	b.commit("a#3", 2, 17, 20, hist.OK, 2, map[string]string{"k0": "a3"})
	refused := b.commit("b#4", 2, 21, 25, hist.Fenced, 0, map[string]string{"k0": "b4"})
	refused.Out.Highest, refused.Out.ClaimedBy, refused.Out.CommitID = 2, "id-a-3", ""
	b.read("r", 26, 27, 2, 2, map[string]string{"k0": "a3"})
	good := recordOf(write{"w0", "f1", 1, nil}, write{"a#3", "id-a-3", 2, []string{"k0"}})
	if got, vs := checkRegister(t, b, good); !strings.HasPrefix(got, "ok/") || len(vs) != 0 {
		t.Errorf("a NoFence commit refused as claimed: porcupine %s, violations %v; want ok", got, vs)
	}
	h := &history{ops: b.ops}
	if vs := checkI10(h, map[string]*domainRecord{"d": good}); len(vs) != 0 {
		t.Errorf("I10 on two NoFence acquisitions of one token, one commit in: %v", vs)
	}
	if n := sharedTokens(h); n != 1 {
		t.Errorf("sharedTokens = %d; want 1 (b began committing at token 2 while it was the highest)", n)
	}
	later := &hb{ops: append([]*op(nil), b.ops...), next: b.next}
	later.fence("c", 3, 16, 17, hist.OK)
	if n := sharedTokens(&history{ops: later.ops}); n != 0 {
		t.Errorf("sharedTokens = %d; want 0 (token 3 was fenced before b began committing at 2)", n)
	}
	both := recordOf(write{"w0", "f1", 1, nil}, write{"a#3", "id-a-3", 2, []string{"k0"}}, write{"b#4", "id-b-4", 2, []string{"k0"}})
	if vs := checkI10(h, map[string]*domainRecord{"d": both}); len(vs) != 1 {
		t.Errorf("I10 with both holders' commits in at one token: %v; want one violation (the record's)", vs)
	}
}

// TestChecksRetries: a retry that recovered makes its commit
// acknowledged; a commit applied twice is caught by I11; a retry reported
// fenced or failed that landed is caught by X3.
func TestChecksRetries(t *testing.T) {
	b := &hb{}
	b.fence("a", 1, 0, 10, hist.OK)
	u := b.commit("a#2", 1, 11, 20, hist.Unknown, 0, map[string]string{"k0": "x"})
	r := b.add("a", hist.OpRetry, 21, 30, hist.Input{Token: 1, Puts: u.In.Puts, Tag: "a#2", RetryOf: u.ID, CommitID: "id-a-2"}, hist.OK, hist.Output{Seq: 2, CommitID: "id-a-2", Recovered: true})
	b.read("r", 31, 35, 2, 1, map[string]string{"k0": "x"})
	h := &history{ops: b.ops}
	h.mergeRetries()
	if len(h.retries) != 1 || h.retries[0] != r || u.Outcome != hist.OK || u.Out.Seq != 2 || u.Return != 30 {
		t.Fatalf("merge: retries %d, commit %s seq %d return %d", len(h.retries), u.Outcome, u.Out.Seq, u.Return)
	}
	rec := recordOf(write{"a", "f1", 1, nil}, write{"a#2", "id-a-2", 1, []string{"k0"}})
	recs := map[string]*domainRecord{"d": rec}
	reg, vs := resolve(h, recs)
	vs = append(vs, checkI11(recs)...)
	vs = append(vs, checkX3(h, recs)...)
	if len(vs) != 0 {
		t.Errorf("a recovered retry: %v", vs)
	}
	if res := check(partitions(reg, h, []string{"d"}, unitKeys), 10*time.Second); res[0].Result != "ok" {
		t.Errorf("porcupine: %s", res[0].Result)
	}
	// Applied twice: the same commit (tag) again under a fresh id.
	twice := recordOf(write{"a", "f1", 1, nil}, write{"a#2", "id-a-2", 1, []string{"k0"}}, write{"a#2", "fresh", 1, []string{"k0"}})
	if vs := checkI11(map[string]*domainRecord{"d": twice}); len(vs) != 1 {
		t.Errorf("I11: %v, want the commit applied twice", vs)
	}
	// A retry reported fenced for a commit that landed.
	r.Outcome, r.Out = hist.Fenced, hist.Output{Highest: 2}
	if vs := checkX3(h, recs); len(vs) != 1 {
		t.Errorf("X3: %v, want the fenced retry of a landed commit", vs)
	}
}

// TestResolveSameTokenTwice: a client given one token twice (its first
// fence refused after a coordinator wipe, the token issued again from
// the floor) wrote one fence, and it belongs to the acquisition that
// reported it accepted, not to the refused one.
func TestResolveSameTokenTwice(t *testing.T) {
	b := &hb{}
	b.issue("a", 1, 0, 5)
	b.fence("a", 1, 0, 10, hist.OK)
	b.commit("a#2", 1, 11, 20, hist.OK, 2, map[string]string{"k0": "x"})
	b.issue("b", 2, 21, 25)
	refused := b.fence("b", 2, 21, 30, hist.Fail)
	refused.Err = `objstore: invalid token "2": the coordinator never issued a token for domain "d"`
	b.read("r", 31, 35, 2, 1, map[string]string{"k0": "x"})
	b.issue("b", 2, 36, 38)
	b.fence("b", 2, 36, 40, hist.OK)
	b.read("r", 41, 45, 3, 2, map[string]string{"k0": "x"})
	rec := recordOf(write{"a", "f1", 1, nil}, write{"a#2", "id-a-2", 1, []string{"k0"}}, write{"b", "f2", 2, nil})
	got, vs := checkRegister(t, b, rec)
	if !strings.HasPrefix(got, "ok/") || len(vs) != 0 {
		t.Fatalf("porcupine %s, violations %v; want ok and none", got, vs)
	}
	if refused.applied {
		t.Error("the refused fence was resolved as the one that applied")
	}
}

// TestOnlyNoBite: a run is run again only when nothing but its bite was
// missing: not when a check caught something, porcupine did not say ok,
// a stale commit was accepted or a problem was met, nor when it bit.
func TestOnlyNoBite(t *testing.T) {
	quiet := func() *report {
		return &report{Verdict: "fail", Invariants: []invariantResult{{Name: "I1"}}, Porcupine: []verdict{{Result: "ok"}}}
	}
	if r := quiet(); !onlyNoBite(r) {
		t.Error("a run that failed only for want of a bite is not run again")
	}
	for name, change := range map[string]func(*report){
		"bit":         func(r *report) { r.Bit, r.Verdict = true, "pass" },
		"violation":   func(r *report) { r.Invariants[0].Violations = 1 },
		"porcupine":   func(r *report) { r.Porcupine[0].Result = "illegal" },
		"timed out":   func(r *report) { r.Porcupine[0].Result = "unknown" },
		"stale":       func(r *report) { r.Staleness.CommitsAccepted = 1 },
		"problem":     func(r *report) { r.Problems = []string{"final list: boom"} },
		"caught ctrl": func(r *report) { r.Control, r.Verdict = true, "caught" },
	} {
		r := quiet()
		change(r)
		if onlyNoBite(r) {
			t.Errorf("%s: run again, as if it had only not bitten", name)
		}
	}
	if r := (&report{Control: true, Verdict: "missed"}); !onlyNoBite(r) {
		t.Error("a control missed without a bite is not run again")
	}
}
