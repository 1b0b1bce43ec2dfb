package faults

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// totals sums up every run of a suite: what docs/faults.md quotes for a
// long run. The suite writes them as suite.json and suite.txt beside the
// runs' reports.
type totals struct {
	SuiteSeed uint64  `json:"suite_seed"`
	Seconds   float64 `json:"duration_seconds"`
	Runs      int     `json:"runs"`
	Real      int     `json:"real_runs"`
	Controls  int     `json:"negative_controls"`
	Failed    int     `json:"real_runs_failed"`
	Caught    int     `json:"controls_caught"`
	Bit       int     `json:"real_runs_where_the_fault_bit"`

	// The rest sums the real runs only: a control's history is wrong on
	// purpose.
	Ops           map[string]map[string]int `json:"operations"`
	Recovered     int                       `json:"commits_recovered_by_read_back"`
	Pending       int                       `json:"writes_pending_resolved_from_record"`
	Restarts      int                       `json:"writer_restarts"`
	FaultCount    map[string]int            `json:"faults_by_kind"`
	FaultSeconds  map[string]float64        `json:"fault_seconds_by_kind"`
	Staleness     staleness                 `json:"staleness"`
	ManifestPuts  map[string]int64          `json:"manifest_writes"`
	HTTPFaults    map[string]int64          `json:"http_faults"`
	Partitions    int                       `json:"porcupine_partitions"`
	Results       map[string]int            `json:"porcupine_results"`
	LongestCheck  float64                   `json:"porcupine_longest_check_seconds"`
	Violations    map[string]int            `json:"invariant_violations"`
	I7Checks      int                       `json:"i7_checks"`
	RecoveryMax   float64                   `json:"recovery_max_seconds"`
	RecoveryBound float64                   `json:"recovery_bound_seconds"`
	Problems      int                       `json:"problems"`
	GC            gcStats                   `json:"gc"`
	Retries       map[string]int            `json:"retries"`
	FailedClosed  int                       `json:"failed_closed"`
	Wiped         wipeStats                 `json:"coordinator_wipes"`
	Merged        mergeStats                `json:"merged_writes"`

	reports []*report
}

// sumUp adds up reports.
func sumUp(reports []*report, seed uint64, took time.Duration) *totals {
	t := &totals{
		SuiteSeed: seed, Seconds: took.Seconds(), Runs: len(reports), reports: reports,
		Ops: map[string]map[string]int{}, FaultCount: map[string]int{}, FaultSeconds: map[string]float64{},
		ManifestPuts: map[string]int64{}, HTTPFaults: map[string]int64{}, Results: map[string]int{}, Violations: map[string]int{},
		Retries: map[string]int{},
	}
	for _, r := range reports {
		if r.Control {
			t.Controls++
			if r.Verdict == "caught" {
				t.Caught++
			}
			continue
		}
		t.Real++
		if r.Verdict != "pass" {
			t.Failed++
		}
		if r.Bit {
			t.Bit++
		}
		for op, outs := range r.Ops {
			if t.Ops[op] == nil {
				t.Ops[op] = map[string]int{}
			}
			for o, n := range outs {
				t.Ops[op][o] += n
			}
		}
		t.Pending += r.Ops["commit"]["pending"] + r.Ops["acquire"]["pending"]
		t.Recovered += r.Recovered
		t.Restarts += r.Restarts
		for k, n := range r.FaultCount {
			t.FaultCount[k] += n
		}
		for k, s := range r.FaultSeconds {
			t.FaultSeconds[k] += s
		}
		s := r.Staleness
		t.Staleness.Windows += s.Windows
		t.Staleness.WindowSeconds += s.WindowSeconds
		t.Staleness.LongestSeconds = max(t.Staleness.LongestSeconds, s.LongestSeconds)
		t.Staleness.CommitsAttempt += s.CommitsAttempt
		t.Staleness.CommitsAccepted += s.CommitsAccepted
		t.Staleness.FencedByStore += s.FencedByStore
		for k, n := range r.ManifestPuts {
			t.ManifestPuts[k] += n
		}
		t.HTTPFaults["requests"] += r.HTTPFaults.Requests
		t.HTTPFaults["refused_503"] += r.HTTPFaults.Refused503
		t.HTTPFaults["refused_500"] += r.HTTPFaults.Refused500
		t.HTTPFaults["applied_503"] += r.HTTPFaults.Applied503
		t.HTTPFaults["forgot_reads"] += r.HTTPFaults.ForgotReads
		t.HTTPFaults["forgot_if_match"] += r.HTTPFaults.ForgotIfMatch
		t.HTTPFaults["overwrote"] += r.HTTPFaults.Overwrote
		g := r.GC
		t.GC.Runs += g.Runs
		t.GC.Failed += g.Failed
		t.GC.Deleted += g.Deleted
		t.GC.Scanned += g.Scanned
		t.GC.PendingMax = max(t.GC.PendingMax, g.PendingMax)
		t.GC.PendingLast += g.PendingLast
		t.GC.Judged += g.Judged
		t.GC.ReadsExcused += g.ReadsExcused
		for k, n := range r.Retries {
			t.Retries[k] += n
		}
		t.FailedClosed += r.FailedClosed
		t.Wiped.Wipes += r.Wiped.Wipes
		t.Wiped.Reissued += r.Wiped.Reissued
		t.Wiped.Claimed += r.Wiped.Claimed
		t.Wiped.AcquiredAfter += r.Wiped.AcquiredAfter
		t.Wiped.NoFence += r.Wiped.NoFence
		t.Wiped.CommitsClaimed += r.Wiped.CommitsClaimed
		t.Wiped.SharedTokens += r.Wiped.SharedTokens
		t.Merged.Writes += r.Merged.Writes
		t.Merged.Commits += r.Merged.Commits
		t.Merged.Max = max(t.Merged.Max, r.Merged.Max)
		for _, v := range r.Porcupine {
			t.Partitions++
			t.Results[v.Result]++
			t.LongestCheck = max(t.LongestCheck, v.Seconds)
		}
		for _, in := range r.Invariants {
			t.Violations[in.Name] += in.Violations
		}
		t.I7Checks += r.I7Checked
		t.RecoveryMax = max(t.RecoveryMax, r.Recovery.MaxSeconds)
		t.RecoveryBound = max(t.RecoveryBound, r.Recovery.BoundSeconds)
		t.Problems += len(r.Problems)
	}
	return t
}

// violations is the sum over every invariant.
func (t *totals) violations() int {
	n := 0
	for _, v := range t.Violations {
		n += v
	}
	return n
}

// text is the readable summary: a line per run, then the totals.
func (t *totals) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fault suite: seed %d, %d runs in %s\n", t.SuiteSeed, t.Runs, time.Duration(t.Seconds*float64(time.Second)).Round(time.Second))
	for _, r := range t.reports {
		fmt.Fprintf(&b, "  %-22s %-8s %-7s seed %-20d %5.1fs windows %-3d stale commits %d/%d accepted bite=%v\n",
			r.Kind, r.Coord, r.Verdict, r.Seed, r.Duration, r.Staleness.Windows, r.Staleness.CommitsAccepted, r.Staleness.CommitsAttempt, r.Bit)
	}
	fmt.Fprintf(&b, "real runs: %d (%d failed; the fault bit in %d)\n", t.Real, t.Failed, t.Bit)
	fmt.Fprintf(&b, "  operations: %s\n", opsText(t.Ops))
	fmt.Fprintf(&b, "  commits recovered by read-back: %d; writes left pending by killed writers: %d; writers replaced: %d\n", t.Recovered, t.Pending, t.Restarts)
	var faults []string
	for _, k := range slices.Sorted(maps.Keys(t.FaultCount)) {
		faults = append(faults, fmt.Sprintf("%s %d (%.1fs)", k, t.FaultCount[k], t.FaultSeconds[k]))
	}
	fmt.Fprintf(&b, "  faults: %s\n", strings.Join(faults, ", "))
	s := t.Staleness
	fmt.Fprintf(&b, "  stale-holder windows: %d, %.1fs in all, longest %.1fs\n", s.Windows, s.WindowSeconds, s.LongestSeconds)
	fmt.Fprintf(&b, "  stale commits: %d attempted, %d accepted, %d fenced by the store\n", s.CommitsAttempt, s.CommitsAccepted, s.FencedByStore)
	fmt.Fprintf(&b, "  manifest writes: %d, answered 412: %d, 409: %d, other errors: %d\n", t.ManifestPuts["manifest_puts"], t.ManifestPuts["manifest_412"], t.ManifestPuts["manifest_409"], t.ManifestPuts["manifest_err"])
	fmt.Fprintf(&b, "  HTTP fault layer: %d requests, %d refused with 503, %d with 500, %d applied and answered 503\n", t.HTTPFaults["requests"], t.HTTPFaults["refused_503"], t.HTTPFaults["refused_500"], t.HTTPFaults["applied_503"])
	fmt.Fprintf(&b, "  forgetful store: %d reads and %d If-Match writes answered 404, %d If-None-Match writes let through over the object; %d operations failed closed\n", t.HTTPFaults["forgot_reads"], t.HTTPFaults["forgot_if_match"], t.HTTPFaults["overwrote"], t.FailedClosed)
	fmt.Fprintf(&b, "  coordinator wipes: %d; tokens issued again %d; fences refused as claimed %d; acquisitions after a wipe %d; without a fence %d, whose commits refused as claimed %d; tokens a second holder committed at %d\n", t.Wiped.Wipes, t.Wiped.Reissued, t.Wiped.Claimed, t.Wiped.AcquiredAfter, t.Wiped.NoFence, t.Wiped.CommitsClaimed, t.Wiped.SharedTokens)
	fmt.Fprintf(&b, "  unknown outcomes injected: %d; retries: %s\n", t.ManifestPuts["unknown_injected"], outcomesText(t.Retries))
	fmt.Fprintf(&b, "  merged writes (group commit): %d in the store's record, applying %d commits (at most %d in one); %d sent by writers, %d of them ended with an error\n", t.Merged.Writes, t.Merged.Commits, t.Merged.Max, t.ManifestPuts["merged_writes"], t.ManifestPuts["merged_writes_failed"])
	fmt.Fprintf(&b, "  gc (grace 0): %d collects (%d failed), %d objects deleted, pending at most %d in one collect; %d deletions judged (I9); %d reads met a superseded version it had deleted\n", t.GC.Runs, t.GC.Failed, t.GC.Deleted, t.GC.PendingMax, t.GC.Judged, t.GC.ReadsExcused)
	var res []string
	for _, k := range slices.Sorted(maps.Keys(t.Results)) {
		res = append(res, fmt.Sprintf("%s %d", k, t.Results[k]))
	}
	fmt.Fprintf(&b, "  porcupine: %d partitions (%s), longest check %.3fs\n", t.Partitions, strings.Join(res, ", "), t.LongestCheck)
	var inv []string
	for _, k := range slices.Sorted(maps.Keys(t.Violations)) {
		inv = append(inv, fmt.Sprintf("%s %d", k, t.Violations[k]))
	}
	fmt.Fprintf(&b, "  invariant violations: %d (%s); I7 checks: %d\n", t.violations(), strings.Join(inv, ", "), t.I7Checks)
	fmt.Fprintf(&b, "  recovery (I8): at most %.2fs (bound %.0fs)\n", t.RecoveryMax, t.RecoveryBound)
	fmt.Fprintf(&b, "  problems met (see the reports): %d\n", t.Problems)
	fmt.Fprintf(&b, "negative controls: %d of %d caught\n", t.Caught, t.Controls)
	return b.String()
}

// opsText lists operations by type and outcome.
func opsText(ops map[string]map[string]int) string {
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(ops)) {
		var outs []string
		for _, o := range slices.Sorted(maps.Keys(ops[op])) {
			outs = append(outs, fmt.Sprintf("%s %d", o, ops[op][o]))
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", op, strings.Join(outs, ", ")))
	}
	return strings.Join(parts, "; ")
}

// save writes suite.json and suite.txt into dir.
func (t *totals) save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "suite.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "suite.txt"), []byte(t.text()), 0o644)
}

// TestSumUp: totals add up the real runs only, count controls apart, and
// keep the longest window and check rather than their sum.
func TestSumUp(t *testing.T) {
	real := func(windows, accepted int, longest float64, violations int) *report {
		return &report{
			Kind: "sigstop", Verdict: "pass", Bit: true,
			Ops:          map[string]map[string]int{"commit": {"ok": 10, "pending": 1}},
			FaultCount:   map[string]int{"sigstop": 2},
			FaultSeconds: map[string]float64{"sigstop": 1.5},
			Staleness:    staleness{Windows: windows, LongestSeconds: longest, CommitsAttempt: 3, CommitsAccepted: accepted, FencedByStore: 3 - accepted},
			ManifestPuts: map[string]int64{"manifest_412": 4},
			Porcupine:    []verdict{{Result: "ok", Seconds: longest / 10}},
			Invariants:   []invariantResult{{Name: "I1", Violations: violations}, {Name: "I4"}},
			I7Checked:    16,
			Recovery:     recovery{MaxSeconds: longest, BoundSeconds: 36},
		}
	}
	control := &report{Kind: "control-412-ok", Control: true, Verdict: "caught",
		Ops: map[string]map[string]int{"commit": {"ok": 1000}}, Invariants: []invariantResult{{Name: "I4", Violations: 7}}}
	tot := sumUp([]*report{real(2, 0, 3, 0), control, real(1, 1, 5, 2)}, 42, 90*time.Second)

	if tot.Real != 2 || tot.Controls != 1 || tot.Caught != 1 || tot.Bit != 2 {
		t.Errorf("runs: %+v", tot)
	}
	if got := tot.Ops["commit"]["ok"]; got != 20 {
		t.Errorf("acknowledged commits = %d, want 20 (the control's are not counted)", got)
	}
	if tot.Pending != 2 || tot.FaultCount["sigstop"] != 4 || tot.FaultSeconds["sigstop"] != 3 {
		t.Errorf("pending %d, faults %v %v", tot.Pending, tot.FaultCount, tot.FaultSeconds)
	}
	s := tot.Staleness
	if s.Windows != 3 || s.LongestSeconds != 5 || s.CommitsAttempt != 6 || s.CommitsAccepted != 1 || s.FencedByStore != 5 {
		t.Errorf("staleness %+v", s)
	}
	if tot.Violations["I1"] != 2 || tot.Violations["I4"] != 0 || tot.violations() != 2 {
		t.Errorf("violations %v: the control's must not count", tot.Violations)
	}
	if tot.Partitions != 2 || tot.LongestCheck != 0.5 || tot.RecoveryMax != 5 || tot.I7Checks != 32 {
		t.Errorf("porcupine %d %v, recovery %v, I7 %d", tot.Partitions, tot.LongestCheck, tot.RecoveryMax, tot.I7Checks)
	}
	text := tot.text()
	for _, want := range []string{"seed 42, 3 runs in 1m30s", "stale commits: 6 attempted, 1 accepted, 5 fenced", "invariant violations: 2 (I1 2, I4 0)", "negative controls: 1 of 1 caught"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	dir := t.TempDir()
	if err := tot.save(dir); err != nil {
		t.Fatal(err)
	}
	var back totals
	data, err := os.ReadFile(filepath.Join(dir, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &back); err != nil || back.Staleness != tot.Staleness || back.Real != 2 {
		t.Errorf("suite.json does not hold the totals: %v\n%s", err, data)
	}
}
