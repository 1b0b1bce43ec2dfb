package faults

import (
	"slices"
	"strings"
	"testing"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/internal/format"
)

// Merged writes (group commit, objstore/group.go): one manifest write
// applies several commits of one Store, each with its own log entry and
// seq. The store's record must give each its own commit, and the checks
// must judge each.

// mergedHistory: a holder with three goroutines (clients a.g0, a.g1,
// a.g2) commits three times at once; the store writes a.g0's commit
// alone (seq 2) and the other two, queued meanwhile, in one write (seqs
// 3 and 4). a.g1's reply was lost (unknown, no commit id): the record
// decides it. A reader then reads seq 4.
func mergedHistory() (*hb, *domainRecord) {
	b := &hb{}
	b.issue("a", 1, 0, 5)
	b.fence("a", 1, 0, 10, hist.OK)
	b.commit("a.g0#1", 1, 11, 20, hist.OK, 2, map[string]string{"k0": "g0"}).Out.CommitID = "id-g0-1"
	u := b.commit("a.g1#1", 1, 12, 30, hist.Unknown, 0, map[string]string{"k1": "g1"})
	u.Out.CommitID = ""
	b.commit("a.g2#1", 1, 13, 31, hist.OK, 4, map[string]string{"k0": "g2"}).Out.CommitID = "id-g2-1"
	b.read("r", 32, 35, 4, 1, map[string]string{"k0": "g2", "k1": "g1"})
	rec := recordOfBatches(
		[]write{{"a", "f1", 1, nil}},
		[]write{{"a.g0#1", "id-g0-1", 1, []string{"k0"}}},
		[]write{{"a.g1#1", "id-g1-1", 1, []string{"k1"}}, {"a.g2#1", "id-g2-1", 1, []string{"k0"}}},
	)
	return b, rec
}

// mergedFinal is mergedHistory's final read: versions and values.
func mergedFinal() (final, vals map[string]map[string]string) {
	final = map[string]map[string]string{"d": {"k0": format.VersionKey("d", "k0", 1, "id-g2-1"), "k1": format.VersionKey("d", "k1", 1, "id-g1-1")}}
	vals = map[string]map[string]string{"d": {"k0": "g2", "k1": "g1"}}
	return final, vals
}

// allChecks runs resolve and every check of the record and the history
// that a merged write concerns, and returns the violations.
func allChecks(b *hb, rec *domainRecord, final, vals map[string]map[string]string) []violation {
	h := &history{ops: b.ops}
	recs := map[string]*domainRecord{"d": rec}
	reg, vs := resolve(h, recs)
	dels := map[string]map[string]deletion{"d": judgeDeletions(rec)}
	vs = append(vs, checkI1(reg, recs)...)
	vs = append(vs, checkI2(h, recs)...)
	vs = append(vs, checkI3(h, recs, final)...)
	vs = append(vs, checkI4(h, recs, final, vals, dels)...)
	vs = append(vs, checkI6(recs, dels)...)
	vs = append(vs, checkI10(h, recs)...)
	vs = append(vs, checkI11(recs)...)
	vs = append(vs, checkX3(h, recs)...)
	return vs
}

func TestChecksMergedWrites(t *testing.T) {
	b, rec := mergedHistory()
	if got := len(rec.writes[2].commits); got != 2 {
		t.Fatalf("the merged write applied %d commits in the record, want 2", got)
	}
	if mg := mergedIn(map[string]*domainRecord{"d": rec}); mg != (mergeStats{Writes: 1, Commits: 2, Max: 2}) {
		t.Errorf("mergedIn: %+v", mg)
	}
	final, vals := mergedFinal()
	if vs := allChecks(b, rec, final, vals); len(vs) != 0 {
		t.Errorf("a correct history with a merged write: %v", vs)
	}
	if got, vs := checkRegister(t, b, rec); got != "ok/ok" || len(vs) != 0 {
		t.Errorf("porcupine: %s, violations %v; want ok/ok and none", got, vs)
	}
	// The unknown commit, which was not the write's last, is resolved
	// from its own entry: applied at seq 3.
	if u := b.ops[3]; !u.applied || u.seq != 3 {
		t.Errorf("the unknown commit of the merged write: applied %v at seq %d, want seq 3", u.applied, u.seq)
	}
}

// TestChecksMergeDropsEntry: a merged write without the log entry of one
// of its commits (control-merge-drop-entry) is caught by I4: the commit
// was acknowledged but is in no write, and the write's seqs skip it.
func TestChecksMergeDropsEntry(t *testing.T) {
	b, rec := mergedHistory()
	b.ops[3].Outcome, b.ops[3].Out = hist.OK, hist.Output{Seq: 3, CommitID: "id-g1-1"}
	m := rec.writes[2].m
	m.Log = slices.DeleteFunc(slices.Clone(m.Log), func(e format.LogEntry) bool { return e.ID == "id-g1-1" })
	rec = reindexed(rec)
	var i4 []string
	final, vals := mergedFinal()
	for _, v := range allChecks(b, rec, final, vals) {
		if v.check == "I4" {
			i4 = append(i4, v.detail)
		}
	}
	if len(i4) != 2 || !strings.Contains(strings.Join(i4, "\n"), "acknowledged but is not in the store's record") || !strings.Contains(strings.Join(i4, "\n"), "seqs [4]") {
		t.Errorf("I4: %q, want the acknowledged commit missing and the write's seqs skipping seq 3", i4)
	}
}

// TestChecksMergeTwoTokens: a write that applies a commit at token 1
// after one at token 2 (a lower token riding on a higher one) is caught
// by I1, commit by commit, though the write's manifest before had token
// 1.
func TestChecksMergeTwoTokens(t *testing.T) {
	rec := recordOfBatches(
		[]write{{"a", "f1", 1, nil}},
		[]write{{"b#1", "id-b-1", 2, []string{"k0"}}, {"a#2", "id-a-2", 1, []string{"k1"}}},
	)
	vs := checkI1(nil, map[string]*domainRecord{"d": rec})
	if len(vs) != 1 || !strings.Contains(vs[0].detail, `"a#2"`) {
		t.Errorf("I1: %v, want a#2's token 1 on top of 2", vs)
	}
}

// TestChecksMergedCommitTwice: one commit applied again by a later
// merged write, at another seq, is caught by I11, and a merged commit no
// operation made by X2.
func TestChecksMergedCommitTwice(t *testing.T) {
	rec := recordOfBatches(
		[]write{{"a", "f1", 1, nil}},
		[]write{{"a.g0#1", "id-x", 1, []string{"k0"}}, {"a.g1#1", "id-y", 1, []string{"k1"}}},
		[]write{{"a.g1#1", "id-y", 1, []string{"k1"}}, {"a.g2#1", "id-z", 1, []string{"k0"}}},
	)
	if vs := checkI11(map[string]*domainRecord{"d": rec}); len(vs) != 2 {
		t.Errorf("I11: %v, want commit id-y (and its tag) applied twice", vs)
	}
	b := &hb{}
	b.fence("a", 1, 0, 10, hist.OK)
	b.commit("a.g0#1", 1, 11, 20, hist.OK, 2, map[string]string{"k0": "x"}).Out.CommitID = "id-x"
	_, vs := resolve(&history{ops: b.ops}, map[string]*domainRecord{"d": rec})
	var x2 int
	for _, v := range vs {
		if v.check == "X2" {
			x2++
		}
	}
	if x2 != 3 {
		t.Errorf("X2: %v, want the three merged commits no operation made", vs)
	}
}

// reindexed returns rec with its commits found again from its writes.
func reindexed(rec *domainRecord) *domainRecord {
	d := newDomainRecord(rec.domain)
	d.writes, d.versions = rec.writes, rec.versions
	d.index()
	return d
}
