package faults

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/internal/format"
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
	{"I9", "garbage collection deletes only version objects that no commit can publish any more"},
	{"I10", "no token is used by two holders in a domain"},
	{"I11", "no commit is applied twice"},
	{"I12", "a plain copy holds the key's committed value as of the seq it is tagged with, never goes back (in the store's own record of its writes, and for a reader who reads after another read or after the commit returned), and after SyncPlain holds the domain's last value"},
	{"X1", "a commit or fence reported fenced or failed never applied"},
	{"X2", "every manifest write in the store's record is accounted for by an operation"},
	{"X3", "a retry of a commit whose outcome was unknown reports what the store did: recovered only if it landed, fenced or failed only if it did not"},
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
		// Each commit on its own: a write that merged commits (group
		// commit) applied them in order, so a commit below a token an
		// earlier commit of the same write raised to is a violation too.
		for _, c := range rec.commits {
			if c.e.Puts+c.e.Deletes > 0 && c.e.Token < c.before {
				vs = append(vs, violation{"I1", fmt.Sprintf("%s: the commit at seq %d by %q (manifest write seq %d) committed token %d on top of highest token %d", d, c.e.Seq, c.e.Holder, rec.writes[c.write].m.Seq, c.e.Token, c.before)})
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

// consecutive reports whether seqs are exactly from+1 .. to, in order.
func consecutive(seqs []uint64, from, to uint64) bool {
	if to < from || uint64(len(seqs)) != to-from {
		return false
	}
	for i, s := range seqs {
		if s != from+1+uint64(i) {
			return false
		}
	}
	return true
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
		_, _, tok, _, err := format.ParseVersionKey(object)
		if err != nil {
			vs = append(vs, violation{"I3", fmt.Sprintf("%s saw %s/%s at a malformed version %q", who, d, key, object)})
			return
		}
		c, ok := rec.publisher(object)
		switch {
		case !ok:
			vs = append(vs, violation{"I3", fmt.Sprintf("%s saw %s/%s at version %q, which no manifest write in the store's record published", who, d, key, object)})
		case c.e.Token != tok:
			vs = append(vs, violation{"I3", fmt.Sprintf("%s saw %s/%s at version %q (token %d) published by a commit with token %d", who, d, key, object, tok, c.e.Token)})
		case tok < c.before:
			vs = append(vs, violation{"I3", fmt.Sprintf("%s saw %s/%s at version %q: token %d, committed when the domain's highest was %d", who, d, key, object, tok, c.before)})
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
		for i, w := range rec.writes {
			if w.m == nil {
				continue
			}
			for k, e := range w.m.Keys {
				if !e.Deleted && e.Version != "" && rec.introduces(i, e.Version) {
					visible(d, k, e.Version, fmt.Sprintf("manifest seq %d", w.m.Seq))
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
// back the bytes that commit wrote, and that no reader ever met a corrupt
// version, nor a missing one unless the collector deleted it rightly
// (dels, from judgeDeletions): the version was deleted, and when it was,
// the manifest then current no longer named it. A reader may still hold
// an older snapshot that does (a grace of 0 protects no reader), so that
// read fails with ErrNotFound, and is no violation: the version had been
// superseded in between. A version missing that was never deleted, or
// deleted while the current manifest still named it (or while a commit
// could still publish it), is a lost acknowledged write.
func checkI4(h *history, recs map[string]*domainRecord, finalVersions, finalValues map[string]map[string]string, dels map[string]map[string]deletion) []violation {
	var vs []violation
	tags := map[string]*op{}
	for _, o := range h.ops {
		if o.Op == hist.OpCommit {
			tags[o.In.Tag] = o
		}
		if o.Op != hist.OpRead {
			continue
		}
		switch o.Out.Class {
		case hist.ClassIntegrity:
			vs = append(vs, violation{"I4", fmt.Sprintf("%s: %s: %s", o.Client, o.Out.Class, o.Err)})
		case hist.ClassMissing:
			for k, obj := range o.Out.Missing {
				d, ok := dels[o.In.Domain][obj]
				switch {
				case !ok:
					vs = append(vs, violation{"I4", fmt.Sprintf("%s read %s/%s at manifest seq %d: version %q is missing and was never deleted: %s", o.Client, o.In.Domain, k, o.Out.Seq, obj, o.Err)})
				case !d.ok:
					vs = append(vs, violation{"I4", fmt.Sprintf("%s read %s/%s at manifest seq %d: version %q is missing, deleted wrongly (%s)", o.Client, o.In.Domain, k, o.Out.Seq, obj, d.why)})
				}
			}
			if len(o.Out.Missing) == 0 {
				vs = append(vs, violation{"I4", fmt.Sprintf("%s: %s: %s", o.Client, o.Out.Class, o.Err)})
			}
		}
	}
	for d, rec := range recs {
		lastPut := map[string]string{} // key -> version object of the last commit that wrote it
		var prev *format.Manifest
		for i, w := range rec.writes {
			m := w.m
			if m == nil {
				continue
			}
			// A write applies the commits at the seqs after the one
			// before it, every one of them: one commit, or several that
			// the store merged (group commit), each with its own entry.
			seqs := make([]uint64, len(w.commits))
			for j, c := range w.commits {
				seqs[j] = rec.commits[c].e.Seq
			}
			if prev != nil && !consecutive(seqs, prev.Seq, m.Seq) {
				vs = append(vs, violation{"I4", fmt.Sprintf("%s: manifest write seq %d (commit %s by %q, token %d) came after seq %d (commit %s by %q) and applied the commits at seqs %v, not one at every seq from %d to %d: a write was overwritten and its commits lost, or a commit's log entry is missing", d, m.Seq, m.Last.ID, m.Last.Holder, m.Last.Token, prev.Seq, prev.Last.ID, prev.Last.Holder, seqs, prev.Seq+1, m.Seq)})
			}
			prev = m
			for k, e := range m.Keys {
				if rec.introduces(i, e.Version) {
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
			c, ok := rec.publisher(obj)
			if !ok {
				continue // reported by I3
			}
			if o := tags[c.e.Holder]; o != nil && o.In.Puts[k] != finalValues[d][k] {
				vs = append(vs, violation{"I4", fmt.Sprintf("%s/%s: the final read gave %q, but commit %s wrote %q", d, k, finalValues[d][k], c.e.Holder, o.In.Puts[k])})
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

// checkI6 checks that every version object was written once, and that
// every version a manifest named exists. A version the collector deleted
// keeps its object version under a delete marker. It may be written
// again after that deletion (a stale writer's upload arriving late, or
// its SDK's retry of it): that is no rewrite of a version anyone can
// read, if the deletion was right (I9 judges it: nothing can publish
// the version any more) and every later copy came after it. Any other
// second object version is a rewrite.
func checkI6(recs map[string]*domainRecord, dels map[string]map[string]deletion) []violation {
	var vs []violation
	for d, rec := range recs {
		for k, n := range rec.versions {
			if n == 1 {
				continue
			}
			del, deleted := dels[d][k]
			times := slices.SortedFunc(slices.Values(rec.versionTimes[k]), func(a, b time.Time) int { return a.Compare(b) })
			if deleted && del.ok && len(times) == n && !times[1].Before(del.at) && !times[0].After(del.at) {
				continue
			}
			vs = append(vs, violation{"I6", fmt.Sprintf("%s: version object %q has %d versions (written at %v; deleted: %v)", d, k, n, times, deleted)})
		}
		named := map[string]bool{}
		for _, w := range rec.writes {
			if w.m == nil {
				continue
			}
			for _, e := range w.m.Keys {
				// An inline value has no object until a commit moves
				// it out of the manifest, into a pack.
				obj := e.Version
				if e.Pack != "" {
					obj = e.Pack
				}
				if obj != "" && !e.Inline && !named[obj] {
					named[obj] = true
					if rec.versions[obj] == 0 {
						vs = append(vs, violation{"I6", fmt.Sprintf("%s: manifest seq %d names object %q (for version %q), which does not exist", d, w.m.Seq, obj, e.Version)})
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

// deletion is the judgement of one version object's deletion.
type deletion struct {
	at  time.Time // its first delete marker, by the server's clock
	ok  bool      // no commit could publish it any more, and no manifest then current named it
	why string    // when not ok
	seq uint64    // the seq of the manifest current when it was deleted
}

// judgeDeletions judges every version object of rec that was deleted
// (the collector is the only deleter): the manifest current at the time
// of its delete marker (the last manifest write at or before it, by the
// server's clock, ties included) must not name it, and either its token
// is below that manifest's highest token or the commit attempt that wrote
// it had landed by then. Then no commit can ever publish it, which is
// what Collect must prove; and no later manifest write may name it.
func judgeDeletions(rec *domainRecord) map[string]deletion {
	out := map[string]deletion{}
	for obj, at := range rec.deleted {
		if p, ok := format.ParsePackObject(rec.domain, obj); ok {
			out[obj] = judgePackDeletion(rec, obj, p, at)
			continue
		}
		d := deletion{at: at}
		_, key, tok, attempt, err := format.ParseVersionKey(obj)
		cur := -1
		for i, w := range rec.writes {
			if w.m != nil && !w.modified.After(at) {
				cur = i
			}
		}
		switch {
		case err != nil:
			d.why = fmt.Sprintf("malformed version key: %v", err)
		case cur < 0:
			d.why = "deleted before the domain had a manifest"
		default:
			m := rec.writes[cur].m
			d.seq = m.Seq
			landed := false
			for _, c := range rec.commits {
				if c.write <= cur && attemptOf(c.e) == attempt {
					landed = true
				}
			}
			e, named := m.Keys[key]
			switch {
			case named && !e.Deleted && e.Version == obj:
				d.why = fmt.Sprintf("deleted while the current manifest (seq %d) named it for key %q", m.Seq, key)
			case tok < m.Highest || landed:
				d.ok = true
			default:
				d.why = fmt.Sprintf("deleted while a commit could still publish it: token %d is not below the highest token %d of the current manifest (seq %d), and its attempt %s had not landed", tok, m.Highest, m.Seq, attempt)
			}
			for _, w := range rec.writes[cur+1:] {
				if w.m == nil {
					continue
				}
				if e, ok := w.m.Keys[key]; ok && !e.Deleted && e.Version == obj {
					d.ok = false
					d.why = fmt.Sprintf("deleted (when seq %d was current), then named by manifest seq %d", m.Seq, w.m.Seq)
					break
				}
			}
		}
		out[obj] = d
	}
	return out
}

// checkI9 reports every version object deleted wrongly (judgeDeletions).
func checkI9(dels map[string]map[string]deletion) []violation {
	var vs []violation
	for _, d := range slices.Sorted(maps.Keys(dels)) {
		for _, obj := range slices.Sorted(maps.Keys(dels[d])) {
			if j := dels[d][obj]; !j.ok {
				vs = append(vs, violation{"I9", fmt.Sprintf("%s: version %q: %s", d, obj, j.why)})
			}
		}
	}
	return vs
}

// holderOf returns the lease holder a commit log's holder stands for:
// the client without its operation number ("w3#12" is w3) and without
// the committer of a writer with several ("w3.g1" is w3; "w3.1" is the
// writer that replaced w3, another holder).
func holderOf(s string) string {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, ".g"); i > 0 && i+2 < len(s) && strings.Trim(s[i+2:], "0123456789") == "" {
		s = s[:i]
	}
	return s
}

// checkI10 looks for one token used by two holders in a domain: two
// clients' acquisitions that both ended with their fence accepted at the
// same token (history), or manifest writes of two holders at the same
// token (record). A coordinator that issued a token twice (its records
// wiped mid-takeover) must let at most one of the two in.
func checkI10(h *history, recs map[string]*domainRecord) []violation {
	var vs []violation
	type dt struct {
		domain string
		token  uint64
	}
	acq := map[dt]string{}
	for _, o := range h.ops {
		if o.Op != hist.OpAcquire || o.Outcome != hist.OK || o.Out.Token == 0 || o.In.NoFence {
			continue // without a fence, only a commit uses the token: the record's part
		}
		k := dt{o.In.Domain, o.Out.Token}
		if prev, ok := acq[k]; ok && prev != o.Client {
			vs = append(vs, violation{"I10", fmt.Sprintf("%s: token %d acquired and fenced by %s and by %s", k.domain, k.token, prev, o.Client)})
		}
		acq[k] = o.Client
	}
	for _, d := range slices.Sorted(maps.Keys(recs)) {
		type first struct {
			holder string
			seq    uint64
		}
		byToken := map[uint64]first{}
		for _, c := range recs[d].commits {
			t, who := c.e.Token, holderOf(c.e.Holder)
			prev, ok := byToken[t]
			switch {
			case !ok:
				byToken[t] = first{who, c.e.Seq}
			case prev.holder != who:
				vs = append(vs, violation{"I10", fmt.Sprintf("%s: token %d used by %s (seq %d) and by %s (seq %d, commit %s)", d, t, prev.holder, prev.seq, who, c.e.Seq, c.e.ID)})
			}
		}
	}
	return vs
}

// checkI11 looks for a commit applied twice: its commit id on two
// commits of the store's record (two log entries that manifest writes
// added, see domainRecord.index), or its tag (the holder name of one
// commit of the history, retries included) on two such commits that
// carry data. (A commit that creates a domain first writes a fence of its
// own, without data, under its tag: that is not a second application.)
func checkI11(recs map[string]*domainRecord) []violation {
	var vs []violation
	for _, d := range slices.Sorted(maps.Keys(recs)) {
		ids, tags := map[string][]uint64{}, map[string][]uint64{}
		for _, c := range recs[d].commits {
			l := c.e
			ids[l.ID] = append(ids[l.ID], l.Seq)
			if l.Puts+l.Deletes > 0 && strings.Contains(l.Holder, "#") {
				tags[l.Holder] = append(tags[l.Holder], l.Seq)
			}
		}
		for _, id := range slices.Sorted(maps.Keys(ids)) {
			if seqs := ids[id]; len(seqs) > 1 {
				vs = append(vs, violation{"I11", fmt.Sprintf("%s: commit id %s applied by manifest writes at seqs %v", d, id, seqs)})
			}
		}
		for _, tag := range slices.Sorted(maps.Keys(tags)) {
			if seqs := tags[tag]; len(seqs) > 1 {
				vs = append(vs, violation{"I11", fmt.Sprintf("%s: commit %s applied by manifest writes at seqs %v", d, tag, seqs)})
			}
		}
	}
	return vs
}

// checkX3 judges each retry of a commit whose outcome was unknown by the
// store's record: a retry that succeeded must find the commit there, at
// the seq it reported (Recovered: the first attempt had landed); one
// reported fenced, or failed with any other error, must be a commit that
// never landed, under its id or its tag.
func checkX3(h *history, recs map[string]*domainRecord) []violation {
	var vs []violation
	for _, r := range h.retries {
		rec := recs[r.In.Domain]
		if rec == nil || r.pending {
			continue
		}
		landed := -1
		if i, ok := rec.byID[r.In.CommitID]; ok {
			landed = i
		}
		for _, i := range rec.findHolder(r.In.Tag, 0) {
			if e := rec.commits[i].e; e.Puts+e.Deletes > 0 && landed < 0 {
				landed = i
			}
		}
		switch r.Outcome {
		case hist.OK:
			i, ok := rec.byID[r.Out.CommitID]
			switch {
			case !ok:
				vs = append(vs, violation{"X3", fmt.Sprintf("retry of %s (id %s) reported success (recovered %v, seq %d), but the commit is not in the store's record", r.In.Tag, r.Out.CommitID, r.Out.Recovered, r.Out.Seq)})
			case rec.commits[i].e.Seq != r.Out.Seq:
				vs = append(vs, violation{"X3", fmt.Sprintf("retry of %s (id %s) reported seq %d, but the store's record has the commit at seq %d", r.In.Tag, r.Out.CommitID, r.Out.Seq, rec.commits[i].e.Seq)})
			}
		case hist.Fenced, hist.Fail:
			if landed >= 0 {
				vs = append(vs, violation{"X3", fmt.Sprintf("retry of %s (id %s) was reported %s, but the commit landed at seq %d: %s", r.In.Tag, r.In.CommitID, r.Outcome, rec.commits[landed].e.Seq, r.Err)})
			}
		}
	}
	return vs
}

// judgePackDeletion judges the deletion of pack obj at time at as
// judgeDeletions judges a version object's: no manifest current then or
// written later names it in its overlay, and no commit could still
// publish it (its token is below the highest, or the commit attempt that
// wrote it had landed). Shards are not read: a packed value named only
// by a shard is judged by the reads (I4).
func judgePackDeletion(rec *domainRecord, obj string, p format.PackName, at time.Time) deletion {
	d := deletion{at: at}
	cur := -1
	for i, w := range rec.writes {
		if w.m != nil && !w.modified.After(at) {
			cur = i
		}
	}
	if cur < 0 {
		d.why = "deleted before the domain had a manifest"
		return d
	}
	names := func(m *format.Manifest) string {
		for k, e := range m.Keys {
			if e.Pack == obj {
				return k
			}
		}
		return ""
	}
	m := rec.writes[cur].m
	d.seq = m.Seq
	landed := false
	for _, c := range rec.commits {
		if c.write <= cur && attemptOf(c.e) == p.Attempt {
			landed = true
		}
	}
	switch k := names(m); {
	case k != "":
		d.why = fmt.Sprintf("pack deleted while the current manifest (seq %d) named it for key %q", m.Seq, k)
		return d
	case p.Token < m.Highest || landed:
		d.ok = true
	default:
		d.why = fmt.Sprintf("pack deleted while a commit could still publish it: token %d is not below the highest token %d of the current manifest (seq %d), and its attempt %s had not landed", p.Token, m.Highest, m.Seq, p.Attempt)
		return d
	}
	for _, w := range rec.writes[cur+1:] {
		if w.m != nil && names(w.m) != "" {
			d.ok = false
			d.why = fmt.Sprintf("pack deleted (when seq %d was current), then named by manifest seq %d", m.Seq, w.m.Seq)
			break
		}
	}
	return d
}

// dataObject reports whether key is one of domain's version objects or
// packs: the objects that hold values, whose writes and deletions the
// checks judge.
func dataObject(domain, key string) bool {
	return strings.HasPrefix(key, format.VersionPrefix(domain)) || strings.HasPrefix(key, format.PackPrefix(domain))
}
