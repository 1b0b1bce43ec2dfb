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
