package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/objstore"
)

// invariantResult is one invariant's verdict in a report.
type invariantResult struct {
	Name       string   `json:"name"`
	Desc       string   `json:"description"`
	Violations int      `json:"violations"`
	Examples   []string `json:"examples,omitempty"`
}

// report is one run's report.
type report struct {
	Kind      string   `json:"kind"`
	Control   bool     `json:"negative_control"`
	Seed      uint64   `json:"seed"`
	SuiteSeed uint64   `json:"suite_seed"`
	Started   string   `json:"started"`
	Duration  float64  `json:"duration_seconds"`
	Writers   int      `json:"writers"`
	Readers   int      `json:"readers"`
	Domains   []string `json:"domains"`
	TTL       float64  `json:"ttl_seconds"`
	Coord     string   `json:"coordinator"` // dynamodb or bucket
	Store     string   `json:"store"`       // MinIO, fake-gcs-server or Azurite

	Ops          map[string]map[string]int `json:"operations"` // op -> outcome -> count
	Recovered    int                       `json:"commits_recovered_by_read_back"`
	Restarts     int                       `json:"writer_restarts"`
	Faults       []faultEvent              `json:"faults"`
	FaultSeconds map[string]float64        `json:"fault_seconds_by_kind"`
	FaultCount   map[string]int            `json:"faults_by_kind"`
	// FaultSpans counts, per fault kind, the operations in flight from
	// before a fault began until after it ended.
	FaultSpans   map[string]int `json:"operations_spanning_faults"`
	Staleness    staleness      `json:"staleness"`
	GC           gcStats        `json:"gc"`
	Retries      map[string]int `json:"retries"` // outcome -> count; "recovered" counts those that found the first attempt landed
	Wiped        wipeStats      `json:"coordinator_wipes"`
	FailedClosed int            `json:"failed_closed"` // operations refused with ErrCorruptManifest (a lost or older manifest)
	// FencesRefused counts acquisitions whose fence was refused for its
	// token alone: one the coordinator never issued (ErrInvalid), one
	// older than the coordinator's newest (Issued), or one claimed by
	// another commit (ClaimedBy).
	FencesRefused int               `json:"fences_refused_token"`
	NotChecked    []string          `json:"not_checked,omitempty"`
	ManifestPuts  map[string]int64  `json:"manifest_writes"` // writers' counters: puts, 412, 409, errors
	Merged        mergeStats        `json:"merged_writes"`   // group commit, by the store's record
	Plain         plainStats        `json:"plain_copies"`
	HTTPFaults    spec.HTTPStats    `json:"http_faults"`         // every route
	HTTPReaders   spec.HTTPStats    `json:"http_faults_readers"` // the readers' route alone
	Porcupine     []verdict         `json:"porcupine"`
	Invariants    []invariantResult `json:"invariants"`
	I7Checked     int               `json:"i7_checks"`
	Recovery      recovery          `json:"recovery"`
	Bit           bool              `json:"fault_bit"`
	BitWhy        string            `json:"fault_bit_because"`
	Verdict       string            `json:"verdict"` // pass, fail; for controls caught, missed
	CaughtBy      []string          `json:"caught_by,omitempty"`
	Problems      []string          `json:"problems,omitempty"`
	Artifacts     string            `json:"artifacts,omitempty"`
	Replay        string            `json:"replay"`
	Notes         []string          `json:"notes,omitempty"`
}

// mergeStats counts, in the store's record, the manifest writes that
// applied more than one commit (group commit, objstore/group.go) and the
// commits they applied.
type mergeStats struct {
	Writes  int `json:"writes"`
	Commits int `json:"commits"`
	Max     int `json:"most_commits_in_one_write"`
}

// mergedIn counts the merged writes of recs.
func mergedIn(recs map[string]*domainRecord) mergeStats {
	var m mergeStats
	for _, rec := range recs {
		for _, w := range rec.writes {
			if n := len(w.commits); n > 1 {
				m.Writes++
				m.Commits += n
				m.Max = max(m.Max, n)
			}
		}
	}
	return m
}

// gcStats sums the collector's passes.
type gcStats struct {
	Runs    int   `json:"collects"`
	Failed  int   `json:"failed"`
	Deleted int64 `json:"deleted"`
	Scanned int64 `json:"scanned"`
	// PendingMax is the most unnamed objects one Collect kept as pending
	// (a commit in progress could still publish them); PendingLast sums
	// the last Collect of each domain.
	PendingMax  int64 `json:"pending_max"`
	PendingLast int64 `json:"pending_last"`
	// Deletions judged by I9, and readers that met a version the
	// collector had rightly deleted under their snapshot.
	Judged       int `json:"deletions_judged"`
	ReadsExcused int `json:"reads_of_superseded_deleted_versions"`
}

// wipeStats describes what a wiped coordinator did.
type wipeStats struct {
	Wipes int `json:"wipes"`
	// Reissued counts issues of a token already issued in the domain;
	// Claimed counts fences refused because another commit had raised
	// the domain to that very token.
	Reissued int `json:"tokens_issued_again"`
	Claimed  int `json:"fences_refused_claimed"`
	// NoFence counts acquisitions without the takeover fence, and
	// CommitsClaimed their holders' commits refused because another
	// commit had raised the domain to that very token.
	NoFence        int `json:"no_fence_acquisitions"`
	CommitsClaimed int `json:"commits_refused_claimed"`
	// SharedTokens counts the tokens of a domain at which a second
	// holder began committing while the token could still be the
	// domain's highest (sharedTokens): what the claim must decide.
	SharedTokens int `json:"tokens_committed_by_two_holders"`
	// AcquiredAfter counts acquisitions completed after the first wipe.
	AcquiredAfter int `json:"acquired_after_a_wipe"`
}

// finish measures recovery (I8), reads the history and the store's
// record, checks everything and writes the report.
func (r *run) finish(ctx context.Context) *report {
	t := r.t
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	rep := &report{
		Kind: r.p.kind.name, Control: r.p.kind.control != "", Seed: r.p.seed, SuiteSeed: r.s.env.seed,
		Writers: r.p.writers, Readers: r.p.readers, Domains: r.p.domains, TTL: r.p.ttl.Seconds(), Coord: r.p.coord,
		Store:  r.p.store.String(),
		Replay: fmt.Sprintf("%s=%d %s=%s go test -count=1 -run 'TestFaults$' -v ./integration/faults/ (with the servers of deploy/local/servers.sh)", envSeed, r.s.env.seed, envKinds, r.p.kind.name),
	}
	if r.s.env.soak > 0 {
		// A long mode's round: its seed depends on the round, and its
		// fault phase is the long mode's.
		rep.Replay = fmt.Sprintf("%s=%d %s=%s %s=%d %s=1s go test -count=1 -timeout 10m -run 'TestFaults$' -v ./integration/faults/ (with the servers of deploy/local/servers.sh)", envSeed, r.s.env.seed, envKinds, r.p.kind.name, envRound, r.round, envSoak)
	}
	r.ensureServers()
	rec8, v8 := r.probeI8()
	rep.Recovery = rec8
	for _, name := range r.storeRoutes() {
		st, err := r.proxy.setHTTP(name, nil)
		if err == nil {
			rep.HTTPFaults.Requests += st.Requests
			rep.HTTPFaults.Refused503 += st.Refused503
			rep.HTTPFaults.Refused500 += st.Refused500
			rep.HTTPFaults.Applied503 += st.Applied503
			rep.HTTPFaults.ForgotReads += st.ForgotReads
			rep.HTTPFaults.ForgotIfMatch += st.ForgotIfMatch
			rep.HTTPFaults.Overwrote += st.Overwrote
			if name == readerRoute {
				rep.HTTPReaders = st
			}
		}
	}

	h, err := loadHistory(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]*domainRecord{}
	counters := map[string]uint64{}
	finalVersions := map[string]map[string]string{}
	finalValues := map[string]map[string]string{}
	co := r.directCoord()
	reader := objstore.New(r.directBackend(), &objstore.Options{SkipProbe: true})
	for _, d := range r.p.domains {
		rec, err := r.readRecord(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		recs[d] = rec
		st, err := co.State(ctx, d)
		if err != nil {
			t.Fatalf("read the coordinator's state of %s: %v", d, err)
		}
		counters[d] = st.Token
		finalVersions[d], finalValues[d] = map[string]string{}, map[string]string{}
		sn, err := reader.Snapshot(ctx, d)
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("final snapshot of %s: %v", d, err))
			continue
		}
		list, err := sn.List(ctx, nil)
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("final list of %s: %v", d, err))
			continue
		}
		for _, v := range list {
			data, _, err := sn.ReadAll(ctx, v.Key)
			if err != nil {
				v8 = append(v8, violation{"I4", fmt.Sprintf("final read of %s/%s: %v", d, v.Key, err)})
				continue
			}
			finalVersions[d][v.Key], finalValues[d][v.Key] = v.Object, string(data)
		}
	}
	// Plain copies are brought up to date and read before I7's check
	// replaces a manifest.
	var finals []finalPlain
	var v12 []violation
	behind := 0
	var copies map[string][]copyVersion
	copiesBack := 0
	if r.p.plain {
		finals, behind, v12 = r.syncPlain(ctx, finalValues)
		var err error
		if copies, err = r.storeCopies(ctx); err != nil {
			v12 = append(v12, violation{"I12", fmt.Sprintf("reading the store's record of the plain copies: %v", err)})
		}
		back := checkStoreCopies(copies)
		copiesBack = len(back)
		v12 = append(v12, back...)
	}
	i7n, v7 := r.checkI7(ctx, r.p.domains[0])
	rep.I7Checked = i7n

	rep.Merged = mergedIn(recs)
	reg, vres := resolve(h, recs)
	dels := map[string]map[string]deletion{}
	for d, rec := range recs {
		dels[d] = judgeDeletions(rec)
		rep.GC.Judged += len(dels[d])
	}
	var vs []violation
	vs = append(vs, checkI1(reg, recs)...)
	vs = append(vs, checkI2(h, recs)...)
	vs = append(vs, checkI3(h, recs, finalVersions)...)
	vs = append(vs, checkI4(h, recs, finalVersions, finalValues, dels)...)
	if r.p.coordWiped {
		// The kind destroys the coordinator's records on purpose: tokens
		// are then issued again (above the store's floor), and the
		// counter may end below a token issued before a wipe. What must
		// hold instead is I10: one token, one holder.
		rep.NotChecked = append(rep.NotChecked, "I5 and porcupine's token partitions: this kind wipes the coordinator's records, which then issues tokens again; I10 checks that no token was used by two holders")
	} else {
		vs = append(vs, checkI5(h, counters)...)
	}
	vs = append(vs, checkI6(recs, dels)...)
	vs = append(vs, checkI9(dels)...)
	vs = append(vs, checkI10(h, recs)...)
	vs = append(vs, checkI11(recs)...)
	vs = append(vs, checkX3(h, recs)...)
	if r.p.plain {
		vs = append(vs, v12...)
		vs = append(vs, checkI12(h, finals, finalValues)...)
	} else {
		rep.NotChecked = append(rep.NotChecked, "I12: the writers of this kind make no plain copies")
	}
	vs = append(vs, v7...)
	vs = append(vs, v8...)
	vs = append(vs, vres...)
	for _, in := range invariantNames {
		res := invariantResult{Name: in.name, Desc: in.desc}
		for _, v := range vs {
			if v.check == in.name {
				res.Violations++
				if len(res.Examples) < 5 {
					res.Examples = append(res.Examples, v.detail)
				}
			}
		}
		rep.Invariants = append(rep.Invariants, res)
	}

	parts := partitions(reg, h, r.p.domains, r.p.keys)
	if r.p.coordWiped {
		parts = slices.DeleteFunc(parts, func(p partition) bool { return strings.HasPrefix(p.name, "tokens ") })
	}
	rep.Porcupine = check(parts, 2*time.Minute)

	rep.Ops = map[string]map[string]int{}
	for _, o := range h.ops {
		outcome := o.Outcome
		if o.pending {
			outcome = "pending"
		}
		if rep.Ops[o.Op] == nil {
			rep.Ops[o.Op] = map[string]int{}
		}
		rep.Ops[o.Op][outcome]++
		if o.Op == hist.OpCommit && o.Out.Recovered {
			rep.Recovered++
		}
		if strings.Contains(o.Err, "corrupt manifest") {
			rep.FailedClosed++
		}
		if o.Op == hist.OpAcquire && (o.Out.Issued != 0 || o.Out.ClaimedBy != "" || strings.Contains(o.Err, "invalid token")) {
			rep.FencesRefused++
		}
	}
	rep.Retries = map[string]int{}
	for _, o := range h.retries {
		outcome := o.Outcome
		if o.pending {
			outcome = "pending"
		}
		rep.Retries[outcome]++
		if o.Out.Recovered {
			rep.Retries["recovered"]++
		}
		if strings.Contains(o.Err, "corrupt manifest") {
			rep.FailedClosed++
		}
	}
	rep.GC = gcSummary(h, rep.GC)
	for _, o := range h.ops {
		if o.Op == hist.OpRead && o.Out.Class == hist.ClassMissing {
			excused := len(o.Out.Missing) > 0
			for _, obj := range o.Out.Missing {
				if d, ok := dels[o.In.Domain][obj]; !ok || !d.ok {
					excused = false
				}
			}
			if excused {
				rep.GC.ReadsExcused++
			}
		}
	}
	r.mu.Lock()
	rep.Wiped = wipeSummary(h, r.faults, r.start)
	r.mu.Unlock()
	for _, e := range h.events {
		if e.Op == hist.OpLost || e.Op == hist.OpPoint {
			if rep.Ops[e.Op] == nil {
				rep.Ops[e.Op] = map[string]int{}
			}
			rep.Ops[e.Op]["event"]++
		}
	}
	rep.Staleness = measureStaleness(h, reg)
	rep.ManifestPuts = writerStats(h)
	for _, e := range h.events {
		if e.Op == hist.OpPoint {
			rep.Faults = append(rep.Faults, faultEvent{Kind: "point", Target: e.Client + " " + e.Err, Start: r.since(e.Call), End: r.since(e.Call)})
		}
	}
	r.mu.Lock()
	rep.Faults = append(rep.Faults, r.faults...)
	rep.Notes = append(rep.Notes, r.notes...)
	r.mu.Unlock()
	sort.SliceStable(rep.Faults, func(i, j int) bool { return rep.Faults[i].Start < rep.Faults[j].Start })
	rep.FaultSeconds, rep.FaultCount = map[string]float64{}, map[string]int{}
	for _, f := range rep.Faults {
		rep.FaultSeconds[f.Kind] += f.End - f.Start
		rep.FaultCount[f.Kind]++
	}
	if r.p.plain {
		r.mu.Lock()
		staged := append([]stagedCopy(nil), r.staged...)
		r.mu.Unlock()
		rep.Plain = plainSummary(h, finals, behind, rep.FaultCount, rep.ManifestPuts, staged, copies, copiesBack)
	}
	rep.FaultSpans = map[string]int{}
	for _, f := range rep.Faults {
		from, to := r.start+int64(f.Start*1e9), r.start+int64(f.End*1e9)
		for _, o := range h.ops {
			if o.Call <= from && (o.pending || o.Return >= to) && to > from {
				rep.FaultSpans[f.Kind]++
			}
		}
	}
	rep.Restarts = r.fleet.restarts
	r.mu.Lock()
	for _, name := range r.crashes {
		rep.Problems = append(rep.Problems, name+" crashed on its own during the run and was restarted (see the notes)")
	}
	r.mu.Unlock()
	rep.Recovery.FirstCommitAfterHeal = map[string]float64{}
	for _, o := range h.ops {
		if o.Op == hist.OpCommit && o.Outcome == hist.OK && o.Call > r.healedAt && !strings.HasPrefix(o.Client, "probe") {
			d := o.In.Domain
			s := float64(o.Return-r.healedAt) / 1e9
			if cur, ok := rep.Recovery.FirstCommitAfterHeal[d]; !ok || s < cur {
				rep.Recovery.FirstCommitAfterHeal[d] = s
			}
		}
	}
	rep.Bit, rep.BitWhy = r.p.kind.bit(rep)
	rep.Duration = r.since(hist.Now())
	rep.Started = time.Now().Add(-time.Duration(rep.Duration * 1e9)).UTC().Format(time.RFC3339)

	// The verdict.
	var caught []string
	for _, v := range rep.Porcupine {
		if v.Result == "illegal" {
			caught = append(caught, "porcupine "+v.Partition)
		}
	}
	for _, in := range rep.Invariants {
		if in.Violations > 0 {
			caught = append(caught, in.Name)
		}
	}
	if rep.Control {
		rep.CaughtBy = caught
		rep.Verdict = "missed"
		for _, c := range caught {
			for _, want := range r.p.kind.mustCatch {
				if strings.HasPrefix(c, want) {
					rep.Verdict = "caught"
				}
			}
		}
	} else {
		rep.Verdict = "pass"
		if len(caught) > 0 || !rep.Bit {
			rep.Verdict = "fail"
		}
		for _, v := range rep.Porcupine {
			if v.Result == "unknown" {
				rep.Problems = append(rep.Problems, fmt.Sprintf("porcupine timed out on %s", v.Partition))
				rep.Verdict = "fail"
			}
		}
		if rep.Staleness.CommitsAccepted > 0 {
			rep.Verdict = "fail"
		}
	}
	r.save(rep, h)
	return rep
}

// gcSummary adds up the collector's operations.
func gcSummary(h *history, g gcStats) gcStats {
	last := map[string]int64{}
	for _, o := range h.ops {
		if o.Op != hist.OpGC {
			continue
		}
		g.Runs++
		if o.Outcome == hist.Fail {
			g.Failed++
		}
		g.Deleted += o.Out.Stats[spec.GCDeleted]
		g.Scanned += o.Out.Stats[spec.GCScanned]
		g.PendingMax = max(g.PendingMax, o.Out.Stats[spec.GCPending])
		if o.Outcome == hist.OK {
			last[o.In.Domain] = o.Out.Stats[spec.GCPending]
		}
	}
	for _, n := range last {
		g.PendingLast += n
	}
	return g
}

// wipeSummary counts what the coordinator did around its wipes: tokens
// issued again, fences refused as claimed, acquisitions after a wipe.
func wipeSummary(h *history, faults []faultEvent, start int64) wipeStats {
	var w wipeStats
	first := int64(math.MaxInt64)
	for _, f := range faults {
		if f.Kind == "coord-wipe" {
			w.Wipes++
			first = min(first, start+int64(f.Start*1e9))
		}
	}
	issued := map[string]map[uint64]bool{}
	for _, o := range h.ops {
		switch {
		case o.Op == hist.OpIssue && o.Outcome == hist.OK:
			if issued[o.In.Domain] == nil {
				issued[o.In.Domain] = map[uint64]bool{}
			}
			if issued[o.In.Domain][o.Out.Token] {
				w.Reissued++
			}
			issued[o.In.Domain][o.Out.Token] = true
		case o.Op == hist.OpAcquire && o.Out.ClaimedBy != "":
			w.Claimed++
		case o.Op == hist.OpAcquire && o.Outcome == hist.OK && o.Call > first:
			w.AcquiredAfter++
		case o.Op == hist.OpCommit && o.Out.ClaimedBy != "":
			w.CommitsClaimed++
		}
		if o.Op == hist.OpAcquire && o.In.NoFence && o.Outcome == hist.OK {
			w.NoFence++
		}
	}
	w.SharedTokens = sharedTokens(h)
	return w
}

// sharedTokens counts the tokens of a domain at which a second holder
// began committing while the token may still have been the domain's
// highest: no commit or fence at a higher token in the domain had been
// acknowledged before that holder's first commit at it was called. Each
// is a commit that only the claim (or the fence) keeps out.
func sharedTokens(h *history) int {
	type dt struct {
		domain string
		token  uint64
	}
	first := map[dt]map[string]int64{} // holder -> call of its first commit at the token
	raised := map[string][]*op{}       // domain -> acknowledged writes
	for _, o := range h.ops {
		switch {
		case o.Op == hist.OpCommit && o.In.Token != 0:
			k := dt{o.In.Domain, o.In.Token}
			if first[k] == nil {
				first[k] = map[string]int64{}
			}
			if c, ok := first[k][holderOf(o.Client)]; !ok || o.Call < c {
				first[k][holderOf(o.Client)] = o.Call
			}
			if o.Outcome == hist.OK {
				raised[o.In.Domain] = append(raised[o.In.Domain], o)
			}
		case o.Op == hist.OpAcquire && o.Outcome == hist.OK && o.Out.Fence == hist.OK:
			raised[o.In.Domain] = append(raised[o.In.Domain], o)
		}
	}
	n := 0
	for k, holders := range first {
		if len(holders) < 2 {
			continue
		}
		calls := slices.Sorted(maps.Values(holders))
		second, above := calls[1], false
		for _, o := range raised[k.domain] {
			t := o.In.Token
			if o.Op == hist.OpAcquire {
				t = o.Out.Token
			}
			if t > k.token && o.Return < second {
				above = true
				break
			}
		}
		if !above {
			n++
		}
	}
	return n
}

// outcomesText lists outcome counts, or "none".
func outcomesText(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// writerStats sums the writers' last reported counters.
func writerStats(h *history) map[string]int64 {
	last := map[string]map[string]int64{}
	for _, e := range h.events {
		if e.Op == hist.OpStats {
			last[e.Client] = e.Out.Stats
		}
	}
	sum := map[string]int64{}
	for _, st := range last {
		for k, v := range st {
			sum[k] += v
		}
	}
	return sum
}

// failed reports whether the run failed: a violation or an inconclusive
// check in a real run, or a negative control that went unnoticed.
func (rep *report) failed() bool {
	return rep.Verdict == "fail" || rep.Verdict == "missed"
}

// save writes report.json and summary.txt, and on failure (or with
// FENCE_FAULTS_KEEP) the merged history and porcupine's visualization of
// every partition that is not linearizable.
func (r *run) save(rep *report, h *history) {
	dir := filepath.Join(r.s.out, rep.Kind)
	if r.round > 0 {
		dir += fmt.Sprintf("-round%d", r.round)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.t.Errorf("report: %v", err)
		return
	}
	keep := rep.failed() || r.s.env.keep
	if keep {
		rep.Artifacts = dir
		f, err := os.Create(filepath.Join(dir, "history.jsonl"))
		if err == nil {
			enc := json.NewEncoder(f)
			for _, o := range slices.Concat(h.ops, h.retries) {
				enc.Encode(struct {
					hist.Record
					Pending bool   `json:"pending,omitempty"`
					Applied bool   `json:"resolved_applied,omitempty"`
					Seq     uint64 `json:"resolved_seq,omitempty"`
				}{o.Record, o.pending, o.applied, o.seq})
			}
			for _, e := range h.events {
				enc.Encode(e)
			}
			f.Close()
		}
		for _, v := range rep.Porcupine {
			if v.Result != "illegal" && !r.s.env.keep {
				continue
			}
			name := strings.NewReplacer(" ", "-", "/", "_").Replace(v.Partition) + ".html"
			if err := porcupine.VisualizePath(v.model, v.info, filepath.Join(dir, name)); err != nil {
				r.t.Logf("visualize %s: %v", v.Partition, err)
			}
		}
		logs, _ := filepath.Glob(filepath.Join(r.dir, "*.log"))
		logs = append(logs, filepath.Join(r.s.dir, "minio.log"), filepath.Join(r.s.dir, "dynalite.log"))
		for _, path := range logs {
			if data, err := os.ReadFile(path); err == nil {
				os.WriteFile(filepath.Join(dir, filepath.Base(path)), data, 0o644)
			}
		}
	}
	data, _ := json.MarshalIndent(rep, "", "  ")
	os.WriteFile(filepath.Join(dir, "report.json"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "summary.txt"), []byte(rep.summary()), 0o644)
}

// summary is the readable form of the report.
func (rep *report) summary() string {
	var b strings.Builder
	kind := rep.Kind
	if rep.Control {
		kind += " (negative control)"
	}
	fmt.Fprintf(&b, "run %s: seed %d (suite seed %d), %.1fs, %d writers, %d readers, 1 collector, domains %s, TTL %.1fs, store %s, coordinator %s\n",
		kind, rep.Seed, rep.SuiteSeed, rep.Duration, rep.Writers, rep.Readers, strings.Join(rep.Domains, ","), rep.TTL, rep.Store, rep.Coord)
	fmt.Fprintf(&b, "  operations:")
	for _, op := range slices.Sorted(maps.Keys(rep.Ops)) {
		fmt.Fprintf(&b, " %s{", op)
		for i, oc := range slices.Sorted(maps.Keys(rep.Ops[op])) {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%s:%d", oc, rep.Ops[op][oc])
		}
		b.WriteString("}")
	}
	fmt.Fprintf(&b, "; %d commits recovered by read-back; %d writer restarts\n", rep.Recovered, rep.Restarts)
	fmt.Fprintf(&b, "  faults:")
	for _, k := range slices.Sorted(maps.Keys(rep.FaultCount)) {
		fmt.Fprintf(&b, " %s x%d (%.1fs, %d operations spanning)", k, rep.FaultCount[k], rep.FaultSeconds[k], rep.FaultSpans[k])
	}
	if rep.HTTPFaults.Requests > 0 {
		fmt.Fprintf(&b, "; HTTP layer: %d requests, %d refused 503, %d refused 500, %d applied then 503",
			rep.HTTPFaults.Requests, rep.HTTPFaults.Refused503, rep.HTTPFaults.Refused500, rep.HTTPFaults.Applied503)
		fmt.Fprintf(&b, " (readers: %d requests, %d refused)", rep.HTTPReaders.Requests, rep.HTTPReaders.Refused503+rep.HTTPReaders.Refused500)
		if h := rep.HTTPFaults; h.ForgotReads+h.ForgotIfMatch+h.Overwrote > 0 {
			fmt.Fprintf(&b, "; forgetful: %d reads and %d If-Match writes answered 404, %d If-None-Match writes let through over the object", h.ForgotReads, h.ForgotIfMatch, h.Overwrote)
		}
	}
	fmt.Fprintf(&b, "\n  bite: %v (%s)\n", rep.Bit, rep.BitWhy)
	s := rep.Staleness
	fmt.Fprintf(&b, "  stale-holder windows: %d (%.2fs in all, longest %.2fs); stale commits attempted %d, accepted %d, fenced %d\n",
		s.Windows, s.WindowSeconds, s.LongestSeconds, s.CommitsAttempt, s.CommitsAccepted, s.FencedByStore)
	fmt.Fprintf(&b, "  manifest writes: %d, 412 %d, 409 %d, other errors %d; unknown outcomes injected %d\n",
		rep.ManifestPuts["manifest_puts"], rep.ManifestPuts["manifest_412"], rep.ManifestPuts["manifest_409"], rep.ManifestPuts["manifest_err"], rep.ManifestPuts["unknown_injected"])
	if mg := rep.Merged; mg.Writes > 0 || rep.ManifestPuts["merged_writes"] > 0 {
		fmt.Fprintf(&b, "  merged writes (group commit): %d in the store's record, applying %d commits (at most %d in one); writers sent %d (%d commits), %d ended with an error, %d log entries dropped (the control)\n",
			mg.Writes, mg.Commits, mg.Max, rep.ManifestPuts["merged_writes"], rep.ManifestPuts["merged_commits"], rep.ManifestPuts["merged_writes_failed"], rep.ManifestPuts["merge_entries_dropped"])
	}
	fmt.Fprintf(&b, "  retries of unknown commits: %s; operations failed closed (corrupt or lost manifest): %d; fences refused for their token (not issued, older than issued, claimed): %d\n", outcomesText(rep.Retries), rep.FailedClosed, rep.FencesRefused)
	g := rep.GC
	fmt.Fprintf(&b, "  gc (grace 0): %d collects (%d failed), %d objects deleted, pending at most %d in one collect and %d at the end; %d deletions judged (I9); %d reads met a superseded version it had deleted\n",
		g.Runs, g.Failed, g.Deleted, g.PendingMax, g.PendingLast, g.Judged, g.ReadsExcused)
	if w := rep.Wiped; w.Wipes > 0 || w.Claimed > 0 {
		fmt.Fprintf(&b, "  coordinator wipes: %d; tokens issued again %d; fences refused as claimed %d; acquisitions after a wipe %d; without a fence %d, whose commits refused as claimed %d; tokens a second holder committed at %d\n", w.Wipes, w.Reissued, w.Claimed, w.AcquiredAfter, w.NoFence, w.CommitsClaimed, w.SharedTokens)
	}
	for _, n := range rep.NotChecked {
		fmt.Fprintf(&b, "  not checked: %s\n", n)
	}
	fmt.Fprintf(&b, "  porcupine:")
	for _, v := range rep.Porcupine {
		fmt.Fprintf(&b, " [%s: %s, %d ops, %.2fs]", v.Partition, v.Result, v.Ops, v.Seconds)
	}
	for _, v := range rep.Porcupine {
		if v.Explain != "" {
			fmt.Fprintf(&b, "\n    %s: %s", v.Partition, v.Explain)
		}
	}
	fmt.Fprintf(&b, "\n  invariants:")
	for _, in := range rep.Invariants {
		fmt.Fprintf(&b, " %s=%d", in.Name, in.Violations)
	}
	fmt.Fprintf(&b, " (I7 checks %d)\n", rep.I7Checked)
	for _, in := range rep.Invariants {
		for _, e := range in.Examples {
			fmt.Fprintf(&b, "    %s: %s\n", in.Name, e)
		}
	}
	fmt.Fprintf(&b, "  recovery: a fresh writer acquired and committed in at most %.2fs (bound %.0fs)", rep.Recovery.MaxSeconds, rep.Recovery.BoundSeconds)
	if len(rep.Recovery.FirstCommitAfterHeal) > 0 {
		fmt.Fprintf(&b, "; first workload commit after healing:")
		for _, d := range slices.Sorted(maps.Keys(rep.Recovery.FirstCommitAfterHeal)) {
			fmt.Fprintf(&b, " %s %.2fs", d, rep.Recovery.FirstCommitAfterHeal[d])
		}
	}
	b.WriteString("\n")
	for _, p := range rep.Problems {
		fmt.Fprintf(&b, "  problem: %s\n", p)
	}
	fmt.Fprintf(&b, "  verdict: %s", rep.Verdict)
	if rep.Control {
		fmt.Fprintf(&b, " (caught by: %s)", strings.Join(rep.CaughtBy, ", "))
	}
	b.WriteString("\n")
	if rep.Artifacts != "" {
		fmt.Fprintf(&b, "  artifacts: %s\n", rep.Artifacts)
	}
	fmt.Fprintf(&b, "  replay: %s\n", rep.Replay)
	return b.String()
}
