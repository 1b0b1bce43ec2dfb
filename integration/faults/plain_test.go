package faults

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/plain"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/objstore"
)

// Plain copies in the fault suite. Writers of a plain kind make them
// (objstore.Options.PlainCopies), readers GET them as a client that does
// not speak fence would, and the suite stages the race they are fenced
// against: a copy from an older commit sent after a newer commit's copy
// is in place. I12 judges every plain read.

// plainStats sums what plain copies did in a run.
type plainStats struct {
	Reads    int `json:"reads"`
	NotFound int `json:"reads_not_found"`
	Failed   int `json:"reads_failed"`
	// Written counts plain-copy writes that applied; CommitsFailed,
	// commits that landed with plain copies that failed (SyncPlain
	// repairs them).
	Written       int64 `json:"copies_written"`
	CommitsFailed int64 `json:"commits_with_failed_copies"`
	// Staged counts copies from an older commit that the suite let a
	// writer send after a newer commit's copy was in place.
	Staged int `json:"older_copies_staged"`
	// StagedSent counts the staged copies whose write the writer's copy
	// log shows sent after the suite resumed it; StagedApplied, those the
	// store accepted (a broken variant's: a correct writer's is refused).
	StagedSent    int `json:"older_copies_sent"`
	StagedApplied int `json:"older_copies_applied"`
	// StoreWrites counts the writes of plain objects the versioned
	// bucket kept; StoreBack, those that took a copy back (I12).
	StoreWrites int `json:"store_copy_writes"`
	StoreBack   int `json:"store_copies_back"`
	// Synced counts the keys the final SyncPlain checked, Behind those
	// whose copy did not hold the domain's value before it (a writer
	// killed between its commit and its copies leaves them behind).
	Synced int `json:"keys_synced"`
	Behind int `json:"keys_behind_before_sync"`
}

// plainChecker returns the client the suite records its own plain reads
// with.
func (r *run) plainChecker() *hist.Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.plainc == nil {
		w, err := hist.Create(filepath.Join(r.dir, "hist-plaincheck.jsonl"))
		if err != nil {
			r.t.Fatalf("plain checker: %v", err)
		}
		r.plainc = &hist.Client{Name: "plaincheck", W: w}
	}
	return r.plainc
}

// resumePlainPaused handles writer c, which stopped itself just before
// writing the plain copy of ev's key from the commit at ev's seq: it
// waits (at most 3 TTLs) until a newer commit's copy of the key is in
// place, taking the domain over and committing the key itself if no
// writer did, reads the copy, stops every other writer, resumes c, and
// reads the copy again and again until c's commit has returned. c's write must be refused (its
// If-Match names the object it read, which is gone, and the object it
// finds instead is newer), so every read sees the newer copy. The broken
// variant (spec.BreakPlainBlind) lets the write land and stops c again
// right after it, so that a read meets the older copy.
func (r *run) resumePlainPaused(c *child, ev hist.Record) {
	d, k, seq := ev.In.Domain, ev.In.Key, ev.Out.Seq
	start := hist.Now()
	r.logf("%s stopped itself before writing the plain copy of %s/%s from seq %d", c.name, d, k, seq)
	newer := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cp, err := plain.Get(ctx, r.directBackend(), d, k)
		return err == nil && cp.Exists && cp.Seq > seq
	}
	deadline := time.Now().Add(3 * r.p.ttl)
	for !newer() && time.Now().Before(deadline) {
		sleep(100 * time.Millisecond)
	}
	if !newer() {
		err := r.takeOver(d, k, true)
		r.logf("no writer copied %s/%s from a newer commit; the suite committed it: %v", d, k, err)
	}
	staged := newer()
	pc := r.plainChecker()
	plain.Read(pc, r.directBackend(), d, k, r.p.opTimeout)
	// Hold every other writer while c's write is sent, so that no newer
	// copy lands in between and hides what c's write did.
	held := r.stopOthers(c)
	heldAt := hist.Now()
	resumed := hist.Now()
	if staged {
		r.mu.Lock()
		r.staged = append(r.staged, stagedCopy{client: c.name, domain: d, key: k, seq: seq, resumed: resumed})
		r.mu.Unlock()
	}
	c.signal(syscall.SIGCONT)
	// Read the copy back to back until c's commit has returned (its
	// copies and its own check done), or c has stopped itself again
	// right after its write landed (the broken variant: the event
	// precedes the stop), or 3 s passed. The process's state right after
	// SIGCONT can still read as stopped, so the second stop is known by
	// its event, not by the state.
	again := false
	for i, end := 0, time.Now().Add(3*time.Second); time.Now().Before(end); i++ {
		plain.Read(pc, r.directBackend(), d, k, r.p.opTimeout)
		if i%4 != 3 {
			continue
		}
		r.live.refresh()
		if ev, ok := r.live.lastPoint(c.name); ok && ev.Err == "pause "+spec.PointAfterPlainPut && ev.Call > resumed {
			again = true
			break
		}
		if r.live.returnedSince(c.name, resumed) {
			break
		}
	}
	plain.Read(pc, r.directBackend(), d, k, r.p.opTimeout)
	if again {
		r.logf("%s stopped itself again, after its plain write of %s/%s", c.name, d, k)
		// Its event comes just before its stop: resume it once stopped.
		for end := time.Now().Add(time.Second); !c.stopped() && time.Now().Before(end); {
			sleep(time.Millisecond)
		}
		c.signal(syscall.SIGCONT)
	}
	r.resumeOthers(held)
	r.fault("sigstop", fmt.Sprintf("%d other writers while %s sent its plain copy", len(held), c.name), heldAt)
	what := "plain-pause"
	if staged {
		what = "plain-older-copy"
	}
	r.fault(what, fmt.Sprintf("%s's copy of %s/%s from seq %d, sent after a newer one: %v", c.name, d, k, seq, staged), start)
}

// stopOthers stops, with SIGSTOP, every writer but c that is running, and
// returns them; resumeOthers resumes them.
func (r *run) stopOthers(c *child) []*child {
	var held []*child
	for _, o := range r.fleet.writers() {
		if o == c || o.stopped() {
			continue
		}
		r.mu.Lock()
		r.stoppedByUs[o.pid()] = true
		r.mu.Unlock()
		o.signal(syscall.SIGSTOP)
		held = append(held, o)
	}
	return held
}

func (r *run) resumeOthers(held []*child) {
	for _, o := range held {
		o.signal(syscall.SIGCONT)
		r.mu.Lock()
		delete(r.stoppedByUs, o.pid())
		r.mu.Unlock()
	}
}

// finalPlain is one key's plain copy after the final SyncPlain.
type finalPlain struct {
	domain, key string
	copy        plain.Copy
	err         error
}

// syncPlain runs Store.SyncPlain on every domain once the processes have
// stopped, as docs/cli.md tells a user to after a *PlainCopyError, and
// reads every key's plain copy. It returns too how many keys' copies did
// not hold the domain's value (finalValues) before it.
func (r *run) syncPlain(ctx context.Context, finalValues map[string]map[string]string) ([]finalPlain, int, []violation) {
	store := objstore.New(r.directBackend(), &objstore.Options{SkipProbe: true})
	var out []finalPlain
	var vs []violation
	behind := 0
	for _, d := range r.p.domains {
		for _, k := range r.p.keys {
			cp, err := plain.Get(ctx, r.directBackend(), d, k)
			if want, live := finalValues[d][k]; err == nil && (live != cp.Exists || string(cp.Data) != want) {
				behind++
			}
		}
		if err := store.SyncPlain(ctx, d); err != nil {
			vs = append(vs, violation{"I12", fmt.Sprintf("SyncPlain(%s) at the end: %v", d, err)})
			continue
		}
		for _, k := range r.p.keys {
			cp, err := plain.Get(ctx, r.directBackend(), d, k)
			out = append(out, finalPlain{domain: d, key: k, copy: cp, err: err})
		}
	}
	return out, behind, vs
}

// valueAt is one key's committed history: the seqs of the applied
// commits that put it, in order, and their values.
type valueAt struct {
	seqs   []uint64
	values []string
}

// at returns the key's value as of manifest seq s.
func (v *valueAt) at(s uint64) (string, bool) {
	i := sort.Search(len(v.seqs), func(i int) bool { return v.seqs[i] > s })
	if i == 0 {
		return "", false
	}
	return v.values[i-1], true
}

// checkI12 judges plain copies: every plain read finds a copy whose
// bytes are the key's value at the manifest seq the copy is tagged with,
// by the applied commits of the history; a read that starts after
// another read of the key returned sees the same seq or a newer one; a
// read that starts after a commit of the key returned (its copies all
// written) sees that commit's seq or a newer one; and after the final
// SyncPlain every key's copy holds the domain's last value, and a key
// with none has no copy.
func checkI12(h *history, final []finalPlain, finalValues map[string]map[string]string) []violation {
	var vs []violation
	type dk struct{ domain, key string }
	hist12 := map[dk]*valueAt{}
	type done struct {
		ret int64
		seq uint64
		by  string
	}
	commits := map[dk][]done{}
	applied := append([]*op(nil), h.ops...)
	sort.SliceStable(applied, func(i, j int) bool { return applied[i].seq < applied[j].seq })
	for _, o := range applied {
		if o.Op != hist.OpCommit || !o.applied || o.seq == 0 {
			continue
		}
		for k, v := range o.In.Puts {
			id := dk{o.In.Domain, k}
			if hist12[id] == nil {
				hist12[id] = &valueAt{}
			}
			hist12[id].seqs = append(hist12[id].seqs, o.seq)
			hist12[id].values = append(hist12[id].values, v)
			if o.Outcome == hist.OK && !o.pending && !o.Out.PlainFailed {
				commits[id] = append(commits[id], done{o.Return, o.seq, o.In.Tag})
			}
		}
	}
	reads := map[dk][]hist.Record{}
	for _, r := range h.plain {
		id := dk{r.In.Domain, r.In.Key}
		switch {
		case r.Outcome == hist.OK && r.Err != "":
			vs = append(vs, violation{"I12", fmt.Sprintf("%s read the plain copy of %s/%s: %s", r.Client, id.domain, id.key, r.Err)})
			continue
		case r.Outcome == hist.OK:
			v := r.Out.Values[id.key]
			var want string
			ok := false
			if hist12[id] != nil {
				want, ok = hist12[id].at(r.Out.Seq)
			}
			if !ok || want != v {
				vs = append(vs, violation{"I12", fmt.Sprintf("%s read the plain copy of %s/%s tagged seq %d: %q; the key's value at seq %d is %q (known: %v)", r.Client, id.domain, id.key, r.Out.Seq, v, r.Out.Seq, want, ok)})
			}
		case r.Outcome != hist.NotFound:
			continue // failed: it read nothing
		}
		reads[id] = append(reads[id], r)
	}
	seqOf := func(r hist.Record) uint64 {
		if r.Outcome == hist.NotFound {
			return 0
		}
		return r.Out.Seq
	}
	for id, rs := range reads {
		// rs is by call time; returned is rs by return time.
		returned := append([]hist.Record(nil), rs...)
		sort.Slice(returned, func(i, j int) bool { return returned[i].Return < returned[j].Return })
		cs := commits[id]
		sort.Slice(cs, func(i, j int) bool { return cs[i].ret < cs[j].ret })
		var newest hist.Record
		var floor done
		n, m := 0, 0
		for _, b := range rs {
			for ; n < len(returned) && returned[n].Return < b.Call; n++ {
				if a := returned[n]; newest.Client == "" || seqOf(a) > seqOf(newest) {
					newest = a
				}
			}
			for ; m < len(cs) && cs[m].ret < b.Call; m++ {
				if cs[m].seq > floor.seq {
					floor = cs[m]
				}
			}
			if newest.Client != "" && seqOf(b) < seqOf(newest) {
				vs = append(vs, violation{"I12", fmt.Sprintf("%s read the plain copy of %s/%s at seq %d (%s) after %s had read it at seq %d: it went back", b.Client, id.domain, id.key, seqOf(b), b.Outcome, newest.Client, seqOf(newest))})
			}
			if floor.by != "" && seqOf(b) < floor.seq {
				vs = append(vs, violation{"I12", fmt.Sprintf("%s read the plain copy of %s/%s at seq %d (%s) after commit %s had returned at seq %d with its copies written", b.Client, id.domain, id.key, seqOf(b), b.Outcome, floor.by, floor.seq)})
			}
		}
	}
	for _, f := range final {
		want, live := finalValues[f.domain][f.key]
		switch {
		case f.err != nil:
			vs = append(vs, violation{"I12", fmt.Sprintf("after SyncPlain, the plain copy of %s/%s: %v", f.domain, f.key, f.err)})
		case live && (!f.copy.Exists || string(f.copy.Data) != want):
			vs = append(vs, violation{"I12", fmt.Sprintf("after SyncPlain, the plain copy of %s/%s is %q (exists %v); the domain's value is %q", f.domain, f.key, f.copy.Data, f.copy.Exists, want)})
		case !live && f.copy.Exists:
			vs = append(vs, violation{"I12", fmt.Sprintf("after SyncPlain, %s/%s has a plain copy %q but no value", f.domain, f.key, f.copy.Data)})
		}
	}
	return vs
}

// plainSummary adds up plain copies' counts.
func plainSummary(h *history, final []finalPlain, behind int, faults map[string]int, writers map[string]int64, staged []stagedCopy, copies map[string][]copyVersion, copiesBack int) plainStats {
	st := plainStats{Staged: faults["plain-older-copy"], Synced: len(final), Behind: behind, Written: writers["plain_puts"], CommitsFailed: writers["plain_failed"]}
	st.StagedSent, st.StagedApplied = stagedOutcome(h, staged)
	for _, vs := range copies {
		st.StoreWrites += len(vs)
	}
	st.StoreBack = copiesBack
	for _, r := range h.plain {
		st.Reads++
		switch r.Outcome {
		case hist.NotFound:
			st.NotFound++
		case hist.Fail:
			st.Failed++
		}
	}
	return st
}

// plainBit: an older commit's copy was sent after a newer one was in
// place (by the writer's copy log), and readers read plain copies.
func plainBit(rep *report) (bool, string) {
	p := rep.Plain
	return p.StagedSent > 0 && p.Reads-p.NotFound-p.Failed > 0, plainWhy(p)
}

// plainBlindBit, the bite of the broken variant BreakPlainBlind: the
// store accepted an older commit's copy sent after a newer one was in
// place, by the writer's copy log. I12 judges the store's own record of
// the copy, so every bite is caught: none depends on when a reader read.
func plainBlindBit(rep *report) (bool, string) {
	p := rep.Plain
	return p.StagedApplied > 0, plainWhy(p)
}

func plainWhy(p plainStats) string {
	return fmt.Sprintf("%d older copies staged after a newer one, %d sent, %d accepted by the store; the store kept %d copy writes, %d of them back; %d plain reads (%d found none, %d failed), %d copies written, %d commits with failed copies, %d of %d keys behind before SyncPlain",
		p.Staged, p.StagedSent, p.StagedApplied, p.StoreWrites, p.StoreBack, p.Reads, p.NotFound, p.Failed, p.Written, p.CommitsFailed, p.Behind, p.Synced)
}

// plainPausePoint makes the first writer to reach its second plain-copy
// write stop itself just before it (each writer may, and the first to
// claim the pause does, so that the pause does not wait on one writer
// getting a lease); the suite resumes it once a newer commit's copy of
// that key is in place (resumePlainPaused).
func plainPausePoint(r *run, i int, w *spec.Writer) {
	if i == 5 {
		// One writer is killed between a commit that landed and its
		// plain copies, so that copies stay behind until a later commit
		// or the final SyncPlain writes them. It never takes the pause:
		// killed at a copy of another key of the same commit (copies are
		// written in parallel) while the paused copy waits, it would
		// never send the older copy, and the run would not bite.
		w.KillAt, w.KillAfter = spec.PointBeforePlainPut, 3+r.rng.IntN(4)
		return
	}
	w.PauseAt, w.PauseAfter = spec.PointBeforePlainPut, 2
	w.PauseClaim = filepath.Join(r.dir, "plain-pause.claim")
}
