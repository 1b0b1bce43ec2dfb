package faults

import (
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/internal/format"
)

// Staged versions (Store.Stage, published by a commit of receipts): the
// object's suffix is a stage id, which no log entry names. The checks
// must find the commit that published it from the manifests, accept a
// correct history of staged commits, and catch a receipt published at a
// token other than its own, or after the collector deleted its object
// (control-staged-skip-check).

// stageObj is a staged version object of key k0 at token.
func stageObj(token uint64, n byte) string {
	return format.VersionKey("d", "k0", token, "s"+strings.Repeat(string('0'+n), 32))
}

// staged replaces, in rec's writes from the i-th on, the version of key
// that the i-th write names with obj (as a commit of receipts names a
// staged object instead of one of its own), and indexes rec again.
func staged(rec *domainRecord, i int, key, obj string) *domainRecord {
	old := rec.writes[i].m.Keys[key].Version
	for _, w := range rec.writes[i:] {
		if e, ok := w.m.Keys[key]; ok && e.Version == old {
			e.Version = obj
			w.m.Keys[key] = e
		}
	}
	if _, _, _, id, err := format.ParseVersionKey(old); err == nil && !isStageID(id) {
		delete(rec.versions, old) // the commit's own, which it no longer wrote
	}
	rec.versions[obj] = 1
	return reindexed(rec)
}

// stagedHistory: holder a (token 1) publishes a staged value of k0 at
// seq 2; holder b takes over (token 2) and publishes its own staged
// value of k0 at seq 4; a reader reads each.
func stagedHistory() (*hb, *domainRecord, [2]string) {
	objs := [2]string{stageObj(1, 1), stageObj(2, 2)}
	b := &hb{}
	b.issue("a", 1, 0, 5)
	b.fence("a", 1, 0, 10, hist.OK)
	b.commit("a#2", 1, 11, 20, hist.OK, 2, map[string]string{"k0": "a2"})
	b.read("r", 21, 25, 2, 1, map[string]string{"k0": "a2"}).Out.Versions = map[string]string{"k0": objs[0]}
	b.issue("b", 2, 30, 35)
	b.fence("b", 2, 30, 40, hist.OK)
	b.commit("b#2", 2, 41, 50, hist.OK, 4, map[string]string{"k0": "b2"})
	b.read("r", 51, 55, 4, 2, map[string]string{"k0": "b2"}).Out.Versions = map[string]string{"k0": objs[1]}
	rec := recordOf(
		write{"a", "f1", 1, nil},
		write{"a#2", "id-a-2", 1, []string{"k0"}},
		write{"b", "f2", 2, nil},
		write{"b#2", "id-b-2", 2, []string{"k0"}},
	)
	rec = staged(rec, 1, "k0", objs[0])
	rec = staged(rec, 3, "k0", objs[1])
	return b, rec, objs
}

func stagedFinal(obj, val string) (final, vals map[string]map[string]string) {
	return map[string]map[string]string{"d": {"k0": obj}}, map[string]map[string]string{"d": {"k0": val}}
}

// TestChecksStaged: a correct history of staged commits, with the
// collector deleting the first holder's staged value once it was
// superseded and fenced, has no violation and is linearizable; each
// staged object is known as published by its commit.
func TestChecksStaged(t *testing.T) {
	b, rec, objs := stagedHistory()
	rec.deleted[objs[0]] = time.Unix(3, 500) // after seq 4 (written at 3)
	for i, o := range objs {
		c, ok := rec.publisher(o)
		if want := []string{"a#2", "b#2"}[i]; !ok || c.e.Holder != want {
			t.Errorf("publisher(%s) = %q, %v; want %q", o, c.e.Holder, ok, want)
		}
	}
	final, vals := stagedFinal(objs[1], "b2")
	if vs := allChecks(b, rec, final, vals); len(vs) != 0 {
		t.Errorf("a correct history of staged commits: %v", vs)
	}
	if got, vs := checkRegister(t, b, rec); got != "ok/ok" || len(vs) != 0 {
		t.Errorf("porcupine: %s, violations %v; want ok/ok and none", got, vs)
	}
}

// TestChecksStagedStaleReceipt: holder a's value staged at token 1 and
// never published, which the collector deleted once b took over, is
// published by a's next lease at token 3 (a committer that skips the
// receipt check). I3 reports a token-1 version published at token 3, I9
// the deletion of a version a commit then named, and I4 the final read's
// missing version as well as the last commit's value.
func TestChecksStagedStaleReceipt(t *testing.T) {
	b, rec, _ := stagedHistory()
	left := stageObj(1, 3)
	b.issue("a", 3, 60, 65)
	b.fence("a", 3, 60, 70, hist.OK)
	b.commit("a#5", 3, 71, 80, hist.OK, 6, map[string]string{"k0": "a-left"})
	mr := b.read("r", 81, 85, 6, 3, nil)
	mr.Outcome, mr.Out.Class, mr.Out.Missing = hist.Fail, hist.ClassMissing, map[string]string{"k0": left}
	rec.writes = append(rec.writes, recordOf(
		write{"a", "f1", 1, nil}, write{"a#2", "id-a-2", 1, []string{"k0"}},
		write{"b", "f2", 2, nil}, write{"b#2", "id-b-2", 2, []string{"k0"}},
		write{"a", "f3", 3, nil}, write{"a#5", "id-a-5", 3, []string{"k0"}},
	).writes[4:]...)
	for _, w := range rec.writes[4:] {
		w.m.Keys["k0"] = rec.writes[3].m.Keys["k0"]
	}
	rec = staged(reindexed(rec), 5, "k0", left)
	e := rec.writes[5].m.Keys["k0"]
	e.Token = 1 // the receipt's entry carries its own token
	rec.writes[5].m.Keys["k0"] = e
	rec.deleted[left] = time.Unix(3, 500) // seq 4 current: token 1 below 2
	final, vals := stagedFinal(left, "")
	got := map[string]int{}
	var byToken bool
	for _, v := range allChecks(b, rec, final, vals) {
		got[v.check]++
		byToken = byToken || v.check == "I3" && strings.Contains(v.detail, "(token 1) published by a commit with token 3")
	}
	if !byToken {
		t.Errorf("I3 did not report the token-1 version published by the commit at token 3")
	}
	vs := checkI9(map[string]map[string]deletion{"d": judgeDeletions(rec)})
	got["I9"] += len(vs)
	if got["I3"] == 0 || got["I9"] == 0 || got["I4"] == 0 {
		t.Errorf("violations by check %v; want I3, I9 and I4", got)
	}
}

// TestChecksStagedMerged: in a merged write (group commit) that
// publishes staged values of two commits, each staged object is known as
// published by the commit whose log entry put its key.
func TestChecksStagedMerged(t *testing.T) {
	rec := recordOfBatches(
		[]write{{"a", "f1", 1, nil}},
		[]write{{"a.g0#1", "id-g0-1", 1, []string{"k0"}}, {"a.g1#1", "id-g1-1", 1, []string{"k1"}}},
	)
	m := rec.writes[1].m
	for i := range m.Log {
		switch m.Log[i].ID {
		case "id-g0-1":
			m.Log[i].PutKeys = []string{"k0"}
		case "id-g1-1":
			m.Log[i].PutKeys = []string{"k1"}
			m.Last = m.Log[i]
		}
	}
	objs := map[string]string{
		"k0": format.VersionKey("d", "k0", 1, "s"+strings.Repeat("a", 32)),
		"k1": format.VersionKey("d", "k1", 1, "s"+strings.Repeat("b", 32)),
	}
	rec = staged(rec, 1, "k0", objs["k0"])
	rec = staged(rec, 1, "k1", objs["k1"])
	for k, want := range map[string]string{"k0": "a.g0#1", "k1": "a.g1#1"} {
		if c, ok := rec.publisher(objs[k]); !ok || c.e.Holder != want {
			t.Errorf("publisher of %s's staged object: %q, %v; want %q", k, c.e.Holder, ok, want)
		}
		if !rec.introduces(1, objs[k]) || rec.introduces(0, objs[k]) {
			t.Errorf("introduces: %s's staged object should be published by write 1 only", k)
		}
	}
}
