package faults

import (
	"strings"
	"testing"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/plain"
)

// plainRead is one plain GET of d/k0 for the I12 tests: seq 0 is one
// that found no copy.
func plainRead(client string, call, ret int64, seq uint64, value string) hist.Record {
	r := hist.Record{Client: client, Op: hist.OpPlain, Call: call, Return: ret, In: hist.Input{Domain: "d", Key: "k0"}, Outcome: hist.NotFound}
	if seq > 0 {
		r.Outcome, r.Out = hist.OK, hist.Output{Seq: seq, Values: map[string]string{"k0": value}}
	}
	return r
}

// plainHistory: two applied commits of k0, at seqs 2 and 4 (seq 3 is a
// commit of k1 alone), and a plain read at each.
func plainHistory() *history {
	b := &hb{}
	c1 := b.commit("w0#1", 1, 10, 20, hist.OK, 2, map[string]string{"k0": "a"})
	c2 := b.commit("w1#1", 2, 30, 40, hist.OK, 3, map[string]string{"k1": "x"})
	c3 := b.commit("w1#2", 2, 50, 60, hist.OK, 4, map[string]string{"k0": "b"})
	for _, o := range []*op{c1, c2, c3} {
		o.applied, o.seq = true, o.Out.Seq
	}
	return &history{ops: b.ops, plain: []hist.Record{
		plainRead("r0", 5, 6, 0, ""),
		plainRead("r0", 21, 22, 2, "a"),
		plainRead("r1", 41, 42, 3, "a"), // tagged by a later commit's check: still "a" at seq 3
		plainRead("r0", 61, 62, 4, "b"),
	}}
}

func TestChecksPlainCopies(t *testing.T) {
	final := []finalPlain{{domain: "d", key: "k0", copy: plain.Copy{Exists: true, Data: []byte("b"), Seq: 4}}, {domain: "d", key: "k1", copy: plain.Copy{Exists: true, Data: []byte("x"), Seq: 4}}}
	values := map[string]map[string]string{"d": {"k0": "b", "k1": "x"}}
	if vs := checkI12(plainHistory(), final, values); len(vs) != 0 {
		t.Fatalf("a correct history: %v", vs)
	}
	cases := []struct {
		name, want string
		edit       func(h *history, final []finalPlain)
	}{
		{"went back", "went back", func(h *history, _ []finalPlain) {
			h.plain = append(h.plain, plainRead("r1", 70, 71, 2, "a"))
		}},
		{"older than a returned commit", "after commit w1#2 had returned", func(h *history, _ []finalPlain) {
			// Overlaps every read before it, but starts after c3 returned.
			h.plain = append(h.plain, plainRead("r2", 61, 90, 2, "a"))
		}},
		{"gone after it existed", "went back", func(h *history, _ []finalPlain) {
			h.plain = append(h.plain, plainRead("r1", 70, 71, 0, ""))
		}},
		{"bytes of another seq", "the key's value at seq 4", func(h *history, _ []finalPlain) {
			h.plain[3].Out.Values["k0"] = "a"
		}},
		{"a value no applied commit wrote", "the key's value at seq 2", func(h *history, _ []finalPlain) {
			h.ops[0].applied = false
			h.ops[0].seq = 0
		}},
		{"another domain's copy", "tagged with domain", func(h *history, _ []finalPlain) {
			h.plain[1].Err = `plain copy "d/k0" is tagged with domain "e"`
		}},
		{"not synced", "after SyncPlain", func(_ *history, final []finalPlain) {
			final[0].copy.Data = []byte("a")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := plainHistory()
			f := append([]finalPlain(nil), final...)
			f[0].copy.Data = []byte("b")
			tc.edit(h, f)
			vs := checkI12(h, f, values)
			found := false
			for _, v := range vs {
				found = found || (v.check == "I12" && strings.Contains(v.detail, tc.want))
			}
			if !found {
				t.Fatalf("want an I12 violation naming %q; got %v", tc.want, vs)
			}
		})
	}
}

func TestChecksStoreCopies(t *testing.T) {
	v := func(id string, seq uint64) copyVersion { return copyVersion{id: id, seq: seq} }
	good := map[string][]copyVersion{"d/k0": {v("1", 2), v("2", 4), v("3", 4), v("4", 7)}, "d/k1": nil}
	if vs := checkStoreCopies(good); len(vs) != 0 {
		t.Fatalf("copies that only go forward: %v", vs)
	}
	cases := []struct {
		name   string
		copies map[string][]copyVersion
		want   []string
	}{
		// The older copy replaced the newer one, and a newer one
		// replaced it again before any reader looked.
		{"back then forward", map[string][]copyVersion{"d/k0": {v("1", 2), v("2", 5), v("3", 3), v("4", 6)}},
			[]string{"d/k0 went back: write 3 (version 3) is from seq 3, after the copy from seq 5 (version 2)"}},
		{"back below the highest", map[string][]copyVersion{"d/k0": {v("1", 5), v("2", 6), v("3", 4), v("4", 3)}},
			[]string{"write 3 (version 3) is from seq 4, after the copy from seq 6", "write 4 (version 4) is from seq 3, after the copy from seq 6"}},
		{"deleted", map[string][]copyVersion{"d/k0": {v("1", 5), {id: "m", marker: true}}},
			[]string{"write 2 is a delete (marker m)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vs := checkStoreCopies(tc.copies)
			if len(vs) != len(tc.want) {
				t.Fatalf("want %d violations; got %v", len(tc.want), vs)
			}
			for i, w := range tc.want {
				if vs[i].check != "I12" || !strings.Contains(vs[i].detail, w) {
					t.Errorf("violation %d: want I12 naming %q; got %v", i, w, vs[i])
				}
			}
		})
	}
}

func TestStagedOutcome(t *testing.T) {
	put := func(client string, ret int64, seq uint64, outcome string) hist.Record {
		return hist.Record{Client: client, Op: hist.OpPlainPut, Call: ret - 5, Return: ret, In: hist.Input{Domain: "d", Key: "k0"}, Out: hist.Output{Seq: seq}, Outcome: outcome}
	}
	staged := []stagedCopy{{client: "w1", domain: "d", key: "k0", seq: 3, resumed: 100}}
	cases := []struct {
		name          string
		puts          []hist.Record
		sent, applied int
	}{
		{"refused", []hist.Record{put("w1", 110, 3, hist.Fail)}, 1, 0},
		{"accepted", []hist.Record{put("w1", 110, 3, hist.OK)}, 1, 1},
		{"before the resume", []hist.Record{put("w1", 90, 3, hist.OK)}, 0, 0},
		{"another writer", []hist.Record{put("w2", 110, 3, hist.OK)}, 0, 0},
		{"another commit's copy", []hist.Record{put("w1", 110, 4, hist.OK)}, 0, 0},
		{"never sent", nil, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sent, applied := stagedOutcome(&history{plainPuts: tc.puts}, staged)
			if sent != tc.sent || applied != tc.applied {
				t.Fatalf("sent %d, applied %d; want %d, %d", sent, applied, tc.sent, tc.applied)
			}
		})
	}
}
