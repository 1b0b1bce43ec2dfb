package faults

import (
	"fmt"
	"math"
	"sort"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
)

// violation is one broken invariant, with what shows it.
type violation struct {
	check  string // "I1".."I8", "X1", "X2"
	detail string
}

// resolve decides, from the store's record, what every write of the
// history did: an acknowledged one must be there; an unknown or pending
// one applied iff it is there (found by its commit id, or by the holder
// tag it wrote in the log, or for a fence by its holder and token); one
// reported fenced or failed must not be there. It returns the violations
// found on the way (I4, X1, X2), and the operations of the register
// partitions, including a fence for every manifest a commit created first.
func resolve(h *history, recs map[string]*domainRecord) ([]*op, []violation) {
	var vs []violation
	claimed := map[string]map[int]bool{} // domain -> commits (rec.commits) accounted for
	claim := func(domain string, i int) {
		if claimed[domain] == nil {
			claimed[domain] = map[int]bool{}
		}
		claimed[domain][i] = true
	}
	issued := issuesByClient(h)
	fenceOf := fenceOwners(h, recs, issued)
	var reg []*op
	for _, o := range h.ops {
		rec := recs[o.In.Domain]
		if rec == nil {
			continue
		}
		switch o.Op {
		case hist.OpCommit:
			idx := -1
			if id := o.Out.CommitID; id != "" {
				if i, ok := rec.byID[id]; ok {
					idx = i
				}
			}
			for _, i := range rec.findHolder(o.In.Tag, 0) {
				e := rec.commits[i].e
				if e.Puts+e.Deletes == 0 {
					// The commit created the domain's manifest first.
					claim(o.In.Domain, i)
					reg = append(reg, &op{Record: hist.Record{Client: o.Client, Op: hist.OpAcquire, Call: o.Call, Return: o.Return, In: hist.Input{Domain: o.In.Domain, Token: e.Token}, Outcome: hist.Unknown, Out: hist.Output{Fence: hist.Unknown}}, applied: true, seq: e.Seq, pending: true})
				} else if idx < 0 {
					idx = i
				}
			}
			if idx >= 0 {
				claim(o.In.Domain, idx)
			}
			switch {
			case o.Outcome == hist.OK && idx < 0:
				vs = append(vs, violation{"I4", fmt.Sprintf("commit %s (id %s, token %d) was acknowledged but is not in the store's record", o.In.Tag, o.Out.CommitID, o.In.Token)})
				o.applied, o.seq = true, o.Out.Seq
			case o.Outcome == hist.OK:
				o.applied, o.seq = true, rec.commits[idx].e.Seq
				if o.seq != o.Out.Seq {
					vs = append(vs, violation{"I4", fmt.Sprintf("commit %s was acknowledged at seq %d but the store's record has it at seq %d", o.In.Tag, o.Out.Seq, o.seq)})
				}
			case (o.Outcome == hist.Fenced || o.Outcome == hist.Fail) && idx >= 0:
				vs = append(vs, violation{"X1", fmt.Sprintf("commit %s was reported %s but applied (seq %d): %s", o.In.Tag, o.Outcome, rec.commits[idx].e.Seq, o.Err)})
				o.applied, o.seq = true, rec.commits[idx].e.Seq
			case o.Outcome == hist.Unknown || o.pending:
				if idx >= 0 {
					o.applied, o.seq = true, rec.commits[idx].e.Seq
				}
			}
			// A commit refused because the coordinator had issued a newer
			// token (Out.Issued) was refused before the store compared
			// tokens on a manifest: it says nothing about the register.
			if o.applied || (o.Outcome == hist.Fenced && o.Out.Issued == 0) {
				reg = append(reg, o)
			}
		case hist.OpAcquire:
			token := o.Out.Token
			if o.pending {
				token = issued.after(o.Client, o.Call)
			}
			o.In.Token = token
			if token == 0 || o.In.NoFence || (o.Out.Fence == "" && !o.pending) {
				continue // no token was obtained, or no fence: nothing was fenced
			}
			idx, ok := fenceOf[o]
			if !ok {
				idx = -1
			}
			if idx >= 0 {
				claim(o.In.Domain, idx)
			}
			fence := o.Out.Fence
			switch {
			case fence == hist.OK:
				o.applied = true
				if idx >= 0 {
					o.seq = rec.commits[idx].e.Seq
				}
			case (fence == hist.Fenced || fence == hist.Fail) && idx >= 0:
				vs = append(vs, violation{"X1", fmt.Sprintf("%s's fence with token %d was reported %s but applied (seq %d): %s", o.Client, token, fence, rec.commits[idx].e.Seq, o.Err)})
				o.applied, o.seq = true, rec.commits[idx].e.Seq
			case fence == hist.Unknown || o.pending:
				if idx >= 0 {
					o.applied, o.seq = true, rec.commits[idx].e.Seq
				}
			}
			if o.applied || (fence == hist.Fenced && o.Out.Issued == 0) {
				reg = append(reg, o)
			}
		case hist.OpRead:
			if o.Outcome == hist.OK || o.Outcome == hist.NotFound {
				reg = append(reg, o)
			}
		}
	}
	for domain, rec := range recs {
		for _, w := range rec.writes {
			switch {
			case w.m == nil:
				vs = append(vs, violation{"X2", fmt.Sprintf("manifest version %s of %s does not decode: %v", w.versionID, domain, w.err)})
			case len(w.commits) == 0:
				vs = append(vs, violation{"X2", fmt.Sprintf("manifest write seq %d of %s (last commit %s, holder %q) applied no commit: every entry of its log was already in the record", w.m.Seq, domain, w.m.Last.ID, w.m.Last.Holder)})
			}
		}
		for i, c := range rec.commits {
			if !claimed[domain][i] {
				vs = append(vs, violation{"X2", fmt.Sprintf("the commit at seq %d of %s (commit %s, holder %q, token %d; manifest write seq %d) is not accounted for by any operation", c.e.Seq, domain, c.e.ID, c.e.Holder, c.e.Token, rec.writes[c.write].m.Seq)})
			}
		}
	}
	bound(reg)
	return reg, vs
}

// fenceOwners assigns every fence in the store's record to one
// acquisition: the commit without data (in rec.commits) that the acquisition's
// client wrote at its token. A client can be given one token twice (a
// coordinator wiped after its first acquisition, whose fence was then
// refused, issues it again from the floor), and only one of its
// acquisitions can have written the fence: the one reported accepted
// first, then one whose fence ended unknown or was left pending, and
// only then one reported fenced or failed (X1 then reports it).
func fenceOwners(h *history, recs map[string]*domainRecord, issued issues) map[*op]int {
	type key struct {
		domain, client string
		token          uint64
	}
	groups := map[key][]*op{}
	var order []key
	for _, o := range h.ops {
		if o.Op != hist.OpAcquire || recs[o.In.Domain] == nil {
			continue
		}
		token := o.Out.Token
		if o.pending {
			token = issued.after(o.Client, o.Call)
		}
		if token == 0 || o.In.NoFence || (o.Out.Fence == "" && !o.pending) {
			continue
		}
		k := key{o.In.Domain, o.Client, token}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], o)
	}
	rank := func(o *op) int {
		switch {
		case o.Out.Fence == hist.OK:
			return 0
		case o.Out.Fence == hist.Unknown || o.pending:
			return 1
		}
		return 2
	}
	out := map[*op]int{}
	for _, k := range order {
		rec := recs[k.domain]
		var writes []int
		for _, i := range rec.findHolder(k.client, k.token) {
			if e := rec.commits[i].e; e.Puts+e.Deletes == 0 {
				writes = append(writes, i)
			}
		}
		ops := groups[k]
		sort.SliceStable(ops, func(i, j int) bool { return rank(ops[i]) < rank(ops[j]) })
		for i, o := range ops {
			out[o] = -1
			if i < len(writes) {
				out[o] = writes[i]
			}
		}
	}
	return out
}

// bound sets retBound: an operation resolved as applied took effect no
// later than the return of the first operation that saw its seq.
func bound(reg []*op) {
	type obs struct {
		seq uint64
		ret int64
	}
	seen := map[string][]obs{}
	for _, o := range reg {
		o.retBound = o.Return
		if o.pending || (o.Outcome == hist.Unknown && o.Op != hist.OpRead) || o.Out.Fence == hist.Unknown {
			o.retBound = math.MaxInt64
			continue
		}
		s := o.seq
		if o.Op == hist.OpRead {
			s = o.Out.Seq
		}
		if s > 0 {
			seen[o.In.Domain] = append(seen[o.In.Domain], obs{s, o.Return})
		}
	}
	for d, l := range seen {
		sort.Slice(l, func(i, j int) bool { return l[i].seq > l[j].seq })
		// min return over observations with seq >= s, as a suffix minimum.
		for i := 1; i < len(l); i++ {
			l[i].ret = min(l[i].ret, l[i-1].ret)
		}
		seen[d] = l
	}
	for _, o := range reg {
		if o.retBound != math.MaxInt64 || !o.applied {
			continue
		}
		l := seen[o.In.Domain]
		// The first observation in l (sorted by seq, descending) with seq
		// >= o.seq, scanning from the lowest such.
		i := sort.Search(len(l), func(i int) bool { return l[i].seq < o.seq })
		if i > 0 {
			o.retBound = max(l[i-1].ret, o.Call)
		}
	}
}

// issues lists each client's issued tokens in call order.
type issues map[string][]hist.Record

func issuesByClient(h *history) issues {
	out := issues{}
	for _, o := range h.ops {
		if o.Op == hist.OpIssue && o.Outcome == hist.OK {
			out[o.Client] = append(out[o.Client], o.Record)
		}
	}
	return out
}

// after returns the last token issued to client by a call at or after
// t, or 0.
func (is issues) after(client string, t int64) uint64 {
	var tok uint64
	for _, r := range is[client] {
		if r.Call >= t {
			tok = r.Out.Token
		}
	}
	return tok
}
