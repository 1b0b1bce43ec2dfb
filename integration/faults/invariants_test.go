package faults

import (
	"fmt"
	"math"
	"sort"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/objstore"
)

// The invariants, each checked directly on the history and on the store's
// record. I7 and I8 are checked by acting on the store (see run_test.go).
var invariantNames = []struct{ name, desc string }{
	{"I1", "no commit is acknowledged whose token is below a token already committed in its domain"},
	{"I2", "a domain's highest token never decreases, across server restarts"},
	{"I3", "no version with a token below the domain's highest is ever visible to a reader"},
	{"I4", "every acknowledged commit stays readable, with matching SHA-256, until a higher token supersedes it"},
	{"I5", "no token is ever issued twice in a domain"},
	{"I6", "version objects are write-once"},
	{"I7", "a corrupt, empty or missing manifest fails closed, never read as token 0"},
	{"I8", "after the faults heal, a fresh writer acquires and commits within the stated bound"},
	{"X1", "a commit or fence reported fenced or failed never applied"},
	{"X2", "every manifest write in the store's record is accounted for by an operation"},
}

// checkI1 looks for an applied commit whose token is below that of a
// write that had returned before the commit was called (in the history),
// or below the highest token of the manifest it was written on top of (in
// the store's record).
func checkI1(reg []*op, recs map[string]*domainRecord) []violation {
	var vs []violation
	byDomain := map[string][]*op{}
	for _, o := range reg {
		if o.Op != hist.OpRead {
			byDomain[o.In.Domain] = append(byDomain[o.In.Domain], o)
		}
	}
	for _, ops := range byDomain {
		done := append([]*op(nil), ops...)
		sort.Slice(done, func(i, j int) bool { return done[i].retBound < done[j].retBound })
		calls := append([]*op(nil), ops...)
		sort.Slice(calls, func(i, j int) bool { return calls[i].Call < calls[j].Call })
		var highest uint64
		var by *op
		k := 0
		for _, o := range calls {
			for k < len(done) && done[k].retBound < o.Call {
				if d := done[k]; d.applied && d.retBound != math.MaxInt64 && d.In.Token > highest {
					highest, by = d.In.Token, d
				}
				k++
			}
			if o.Op == hist.OpCommit && o.applied && o.In.Token < highest {
				vs = append(vs, violation{"I1", fmt.Sprintf("commit %s with token %d applied (%s) after %s had committed token %d", o.In.Tag, o.In.Token, o.Outcome, label(by), highest)})
			}
		}
	}
	for d, rec := range recs {
		for i, w := range rec.writes {
			if w.m != nil && w.m.Last.Puts+w.m.Last.Deletes > 0 && w.m.Last.Token < rec.prevHighest(i) {
				vs = append(vs, violation{"I1", fmt.Sprintf("%s: manifest write seq %d by %q committed token %d on top of highest token %d", d, w.m.Last.Seq, w.m.Last.Holder, w.m.Last.Token, rec.prevHighest(i))})
			}
		}
	}
	return vs
}

func label(o *op) string {
	if o == nil {
		return "?"
	}
	if o.Op == hist.OpCommit {
		return o.In.Tag
	}
	return o.Client + " fence"
}

// checkI2 looks for a decrease of the highest token between consecutive
// manifest writes, and between reads ordered in real time.
func checkI2(h *history, recs map[string]*domainRecord) []violation {
	var vs []violation
	for d, rec := range recs {
		var prev uint64
		for _, w := range rec.writes {
			if w.m == nil {
				continue
			}
			if w.m.Highest < prev {
				vs = append(vs, violation{"I2", fmt.Sprintf("%s: manifest write seq %d by %q lowered the highest token from %d to %d", d, w.m.Last.Seq, w.m.Last.Holder, prev, w.m.Highest)})
			}
			prev = max(prev, w.m.Highest)
		}
	}
	reads := map[string][]*op{}
	for _, o := range h.ops {
		if o.Op == hist.OpRead && o.Outcome == hist.OK {
			reads[o.In.Domain] = append(reads[o.In.Domain], o)
		}
	}
	for d, rs := range reads {
		done := append([]*op(nil), rs...)
		sort.Slice(done, func(i, j int) bool { return done[i].Return < done[j].Return })
		var seen uint64
		var by *op
		k := 0
		for _, o := range rs { // by call time
			for k < len(done) && done[k].Return < o.Call {
				if done[k].Out.Highest > seen {
					seen, by = done[k].Out.Highest, done[k]
				}
				k++
			}
			if o.Out.Highest < seen {
				vs = append(vs, violation{"I2", fmt.Sprintf("%s: %s read highest token %d after %s had read %d", d, o.Client, o.Out.Highest, by.Client, seen)})
			}
		}
	}
	return vs
}

// checkI3 checks that every version a reader saw, and every version any
// manifest ever named, was published by a manifest write whose token was
// not below the highest token before it.
func checkI3(h *history, recs map[string]*domainRecord, final map[string]map[string]string) []violation {
	var vs []violation
	visible := func(d, key, object, who string) {
		rec := recs[d]
		_, _, tok, id, err := objstore.ParseVersionKey(object)
		if err != nil {
			vs = append(vs, violation{"I3", fmt.Sprintf("%s saw %s/%s at a malformed version %q", who, d, key, object)})
			return
		}
		e, i, ok := rec.entry(id)
		switch {
		case !ok:
			vs = append(vs, violation{"I3", fmt.Sprintf("%s saw %s/%s at version %q, which no manifest write in the store's record published", who, d, key, object)})
		case e.Token != tok:
			vs = append(vs, violation{"I3", fmt.Sprintf("%s saw %s/%s at version %q (token %d) published by a commit with token %d", who, d, key, object, tok, e.Token)})
		case tok < rec.prevHighest(i):
			vs = append(vs, violation{"I3", fmt.Sprintf("%s saw %s/%s at version %q: token %d, committed when the domain's highest was %d", who, d, key, object, tok, rec.prevHighest(i))})
		}
	}
	for _, o := range h.ops {
		if o.Op == hist.OpRead && o.Outcome == hist.OK && recs[o.In.Domain] != nil {
			for k, obj := range o.Out.Versions {
				visible(o.In.Domain, k, obj, o.Client)
			}
		}
	}
	for d, rec := range recs {
		for _, w := range rec.writes {
			if w.m == nil {
				continue
			}
			for k, e := range w.m.Keys {
				if !e.Deleted && e.Version != "" {
					if _, _, _, id, err := objstore.ParseVersionKey(e.Version); err == nil && id == w.m.Last.ID {
						visible(d, k, e.Version, fmt.Sprintf("manifest seq %d", w.m.Seq))
					}
				}
			}
		}
		for k, obj := range final[d] {
			visible(d, k, obj, "the final read")
		}
	}
	return vs
}

// checkI4 checks that no manifest write was lost (each write's seq
// follows the one before), that the final manifest names, for every key,
// the version of the last commit that wrote it, that the final read gave
// back the bytes that commit wrote, and that no reader ever met a missing
// or corrupt version.
func checkI4(h *history, recs map[string]*domainRecord, finalVersions, finalValues map[string]map[string]string) []violation {
	var vs []violation
	tags := map[string]*op{}
	for _, o := range h.ops {
		if o.Op == hist.OpCommit {
			tags[o.In.Tag] = o
		}
		if o.Op == hist.OpRead && (o.Out.Class == hist.ClassIntegrity || o.Out.Class == hist.ClassMissing) {
			vs = append(vs, violation{"I4", fmt.Sprintf("%s: %s: %s", o.Client, o.Out.Class, o.Err)})
		}
	}
	for d, rec := range recs {
		lastPut := map[string]string{} // key -> version object of the last commit that wrote it
		var prev *objstore.Manifest
		for _, w := range rec.writes {
			m := w.m
			if m == nil {
				continue
			}
			if prev != nil && m.Seq != prev.Seq+1 {
				vs = append(vs, violation{"I4", fmt.Sprintf("%s: manifest write seq %d (commit %s by %q, token %d) came after seq %d (commit %s by %q): the write at seq %d was overwritten and its commit lost", d, m.Seq, m.Last.ID, m.Last.Holder, m.Last.Token, prev.Seq, prev.Last.ID, prev.Last.Holder, prev.Seq)})
			}
			prev = m
			for k, e := range m.Keys {
				if _, _, _, id, err := objstore.ParseVersionKey(e.Version); err == nil && id == m.Last.ID {
					lastPut[k] = e.Version
				}
			}
		}
		got := finalVersions[d]
		for k, want := range lastPut {
			if got[k] != want {
				vs = append(vs, violation{"I4", fmt.Sprintf("%s/%s: the last commit that wrote it published %q, but the final manifest names %q", d, k, want, got[k])})
			}
		}
		for k, obj := range got {
			_, _, _, id, err := objstore.ParseVersionKey(obj)
			if err != nil {
				continue
			}
			e, _, ok := rec.entry(id)
			if !ok {
				continue // reported by I3
			}
			if o := tags[e.Holder]; o != nil && o.In.Puts[k] != finalValues[d][k] {
				vs = append(vs, violation{"I4", fmt.Sprintf("%s/%s: the final read gave %q, but commit %s wrote %q", d, k, finalValues[d][k], e.Holder, o.In.Puts[k])})
			}
		}
	}
	return vs
}

// checkI5 looks for a token issued twice in a domain, and for a
// coordinator whose counter is now below a token it issued.
func checkI5(h *history, counters map[string]uint64) []violation {
	var vs []violation
	seen := map[string]map[uint64]string{}
	maxIssued := map[string]uint64{}
	for _, o := range h.ops {
		if o.Op != hist.OpIssue || o.Outcome != hist.OK {
			continue
		}
		d, t := o.In.Domain, o.Out.Token
		if seen[d] == nil {
			seen[d] = map[uint64]string{}
		}
		if prev, ok := seen[d][t]; ok {
			vs = append(vs, violation{"I5", fmt.Sprintf("%s: token %d issued to %s and again to %s", d, t, prev, o.Client)})
		}
		seen[d][t] = o.Client
		maxIssued[d] = max(maxIssued[d], t)
	}
	for d, m := range maxIssued {
		if c, ok := counters[d]; ok && c < m {
			vs = append(vs, violation{"I5", fmt.Sprintf("%s: the coordinator's counter is %d, below token %d it issued", d, c, m)})
		}
	}
	return vs
}

// checkI6 checks that every version object was written once and never
// deleted, and that every version a manifest named exists.
func checkI6(recs map[string]*domainRecord) []violation {
	var vs []violation
	for d, rec := range recs {
		for k, n := range rec.versions {
			if n != 1 {
				vs = append(vs, violation{"I6", fmt.Sprintf("%s: version object %q has %d versions", d, k, n)})
			}
		}
		for _, k := range rec.deleteMarkers {
			vs = append(vs, violation{"I6", fmt.Sprintf("%s: version object %q was deleted", d, k)})
		}
		named := map[string]bool{}
		for _, w := range rec.writes {
			if w.m == nil {
				continue
			}
			for _, e := range w.m.Keys {
				if e.Version != "" && !named[e.Version] {
					named[e.Version] = true
					if rec.versions[e.Version] == 0 {
						vs = append(vs, violation{"I6", fmt.Sprintf("%s: manifest seq %d names version %q, which does not exist", d, w.m.Seq, e.Version)})
					}
				}
			}
		}
	}
	return vs
}

// staleness measures how far the faults bit: the windows during which a
// holder went on operating with a token after a higher one had been
// issued in its domain, and its commits sent after the store had
// accepted a higher token.
type staleness struct {
	Windows         int     `json:"windows"`
	WindowSeconds   float64 `json:"window_seconds"`
	LongestSeconds  float64 `json:"longest_window_seconds"`
	CommitsAttempt  int     `json:"stale_commits_attempted"`
	CommitsAccepted int     `json:"stale_commits_accepted"`
	FencedByStore   int     `json:"stale_commits_fenced"`
}

func measureStaleness(h *history, reg []*op) staleness {
	var s staleness
	type key struct {
		domain string
		token  uint64
	}
	issuedAt := map[string][]hist.Record{}
	for _, o := range h.ops {
		if o.Op == hist.OpIssue && o.Outcome == hist.OK {
			issuedAt[o.In.Domain] = append(issuedAt[o.In.Domain], o.Record)
		}
	}
	// overtaken returns when a higher token than t was first issued.
	overtaken := func(d string, t uint64) int64 {
		at := int64(math.MaxInt64)
		for _, r := range issuedAt[d] {
			if r.Out.Token > t {
				at = min(at, r.Return)
			}
		}
		return at
	}
	last := map[key]int64{}
	for _, o := range h.ops {
		if (o.Op != hist.OpCommit && o.Op != hist.OpAcquire) || o.In.Token == 0 {
			continue
		}
		end := o.Return
		if o.pending {
			end = o.Call
		}
		k := key{o.In.Domain, o.In.Token}
		last[k] = max(last[k], end)
	}
	for k, end := range last {
		if at := overtaken(k.domain, k.token); end > at {
			d := float64(end-at) / 1e9
			s.Windows++
			s.WindowSeconds += d
			s.LongestSeconds = max(s.LongestSeconds, d)
		}
	}
	// Stale commits: sent after a write with a higher token had returned.
	writes := map[string][]*op{}
	for _, o := range reg {
		if o.Op != hist.OpRead && o.applied && o.retBound != math.MaxInt64 {
			writes[o.In.Domain] = append(writes[o.In.Domain], o)
		}
	}
	for _, o := range h.ops {
		if o.Op != hist.OpCommit {
			continue
		}
		for _, w := range writes[o.In.Domain] {
			if w.In.Token > o.In.Token && w.retBound < o.Call {
				s.CommitsAttempt++
				switch {
				case o.applied:
					s.CommitsAccepted++
				case o.Outcome == hist.Fenced:
					s.FencedByStore++
				}
				break
			}
		}
	}
	return s
}
