package model

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// spinEnv set to 1 makes a missing spin or C compiler a failure instead
// of a skip (deploy/local/test.sh sets it).
const spinEnv = "FENCE_TEST_SPIN"

// longEnv set to 1 also runs the largest configurations, which take
// minutes and gigabytes (docs/model.md).
const longEnv = "FENCE_MODEL_LONG"

// invariants maps the name of each invariant's assertion in the model to
// what its violation means.
var invariants = map[string]string{
	"inv_no_stale_write": "a stale write landed: its token is below the highest of the manifest it replaced",
	"inv_applied_once":   "a commit was applied twice",
	"inv_fenced_honest":  "a commit reported fenced (or claimed, or failed) landed",
	"inv_ack_honest":     "a commit was acknowledged that never landed",
	"inv_named_exists":   "the manifest names a deleted object: an acknowledged write is lost",
	"inv_ack_named":      "an acknowledged write's object is not named or is gone before a later write superseded it",
	"inv_one_holder":     "two holders took over at the same token",
	"inv_one_writer":     "writes with one token landed from two holders",
	"model_bound":        "the model's own bound was too small (group.pml's NRQ): the search would not be exhaustive",
}

// check is one run of spin.
type check struct {
	name    string
	file    string   // the scenario
	defines []string // -D options for spin
	// violates, for a control: the trail must violate one of these
	// invariants. Nil: the search must be complete and find no error.
	violates []string
	// reach, for a coverage check: the search must reach COVER(reach).
	reach int
	opt   string // cc's optimisation, default -Og (-O2 compiles 3x slower, runs 1.2x faster)
	hash  int    // pan -w: log2 of the hash table's slots
	long  bool   // only with FENCE_MODEL_LONG=1
	what  string
}

var checks = []check{
	// The correct model: complete searches, no error.
	{name: "Commit", file: "commit.pml", defines: []string{"-DNO_TAKEOVER"},
		what: "W1 (commit, retry) and W2 (two commits, retries) at token 1, GC with 2 passes"},
	{name: "CommitTakeover", file: "commit.pml", defines: []string{"-DW2_ONE", "-DGCPASSES=1"}, hash: 23,
		what: "W1 and W2 (one commit each, retries) at token 1, a takeover at token 2 with a data commit, GC"},
	{name: "Takeover", file: "takeover.pml", defines: []string{"-DNO_STALE", "-DFENCE_RETRY"},
		what: "two holders acquire, with the coordinator's wipe, fence (and retry the fence), and commit; GC"},
	{name: "TakeoverNoFence", file: "takeover.pml", defines: []string{"-DNO_STALE", "-DNO_FENCE"},
		what: "two holders acquire with NoFence, with the coordinator's wipe; each holder's data commit claims its token; GC"},
	{name: "TakeoverStale", file: "takeover.pml", defines: []string{"-DNO_DATA"},
		what: "a stale writer at token 1 while two holders acquire, with the wipe, and fence; GC"},
	{name: "CommitLog1", file: "commit.pml", defines: []string{"-DNO_TAKEOVER", "-DL=1"},
		what: "the Commit scenario with a log of 1 entry"},
	{name: "CommitLog3", file: "commit.pml", defines: []string{"-DNO_TAKEOVER", "-DL=3"},
		what: "the Commit scenario with a log of 3 entries"},
	{name: "CommitWrites3", file: "commit.pml", defines: []string{"-DNO_TAKEOVER", "-DMAXW=3"},
		what: "the Commit scenario with 3 manifest writes per attempt"},
	{name: "CommitUncReset", file: "commit.pml", defines: []string{"-DNO_TAKEOVER", "-DUNC_RESET"},
		what: "the Commit scenario with uncBase restarting after a cleared uncertainty, as objstore/commit.go does"},
	{name: "CommitFull", file: "commit.pml", defines: []string{"-DGCPASSES=1"}, opt: "-O2", hash: 26, long: true,
		what: "every commit.pml process at once: W1, W2 with two commits, the takeover, GC"},
	{name: "TakeoverNoFenceStale", file: "takeover.pml", defines: []string{"-DNO_FENCE"}, long: true,
		what: "TakeoverNoFence with a stale writer at token 1"},
	{name: "TakeoverFull", file: "takeover.pml", defines: []string{"-DFENCE_RETRY"}, opt: "-O2", hash: 26, long: true,
		what: "every takeover.pml process at once: the stale writer, two holders with fence retries and data, GC"},

	// Group commit: merged writes (merged.pml, group.pml).
	{name: "MergedCommit", file: "merged.pml", defines: []string{"-DGCPASSES=2"},
		what: "one Store merges two commits at token 1 in one write (each with a retry, queued again), another Store's commit at token 1, GC with 2 passes"},
	{name: "MergedClaim", file: "merged.pml", defines: []string{"-DCLAIM", "-DGCPASSES=2"},
		what: "MergedCommit with a NoFence holder's claiming commit at token 2 queued in the same Store, which must go alone"},
	{name: "MergedTakeover", file: "merged.pml", defines: []string{"-DCLAIM", "-DTAKEOVER", "-DNO_W"},
		what: "the merged commits and the claiming commit in one Store, and a takeover at token 2 (fence, data) through another Store, GC"},
	{name: "MergedTakeoverW", file: "merged.pml", defines: []string{"-DTAKEOVER", "-DNO_RETRY"}, hash: 23,
		what: "two merged commits (no retries), another Store's commit at token 1, and a takeover at token 2 through a third, GC"},
	{name: "MergedLog1", file: "merged.pml", defines: []string{"-DCLAIM", "-DL=1"},
		what: "MergedClaim with a log of 1 entry: a merged write's first entry is not in the log it writes (objstore never merges so many), and 1 GC pass"},
	{name: "MergedLog3", file: "merged.pml", defines: []string{"-DCLAIM", "-DL=3"},
		what: "MergedClaim with a log of 3 entries and 1 GC pass"},
	{name: "MergedWrites3", file: "merged.pml", defines: []string{"-DCLAIM", "-DMAXW=3"},
		what: "MergedClaim with 3 manifest writes per round and 1 GC pass"},
	{name: "MergedUncReset", file: "merged.pml", defines: []string{"-DCLAIM", "-DUNC_RESET"},
		what: "MergedClaim with uncBase restarting after a cleared uncertainty, as groupPublication.Failed does, and 1 GC pass"},
	{name: "MergedFull", file: "merged.pml", defines: []string{"-DCLAIM", "-DTAKEOVER"}, opt: "-O2", hash: 26, long: true,
		what: "every merged.pml process at once: the merged commits with retries, the claiming commit, the other Store's commit, the takeover, GC"},

	{name: "CommitStaged", file: "commit.pml", defines: []string{"-DSTAGED", "-DW2_ONE", "-DGCPASSES=1"}, hash: 23,
		what: "W1 and W2 publish staged values (each retry the same staged object, the stage id in no log), a takeover at token 2 with a data commit, GC by the token rule only"},
	{name: "CommitStagedNoTakeover", file: "commit.pml", defines: []string{"-DSTAGED", "-DNO_TAKEOVER"},
		what: "W1 (commit, retry) and W2 (two commits, retries) publish staged values at token 1, GC with 2 passes"},

	// Controls: each must fail.
	{name: "ControlOldGC", file: "commit.pml", defines: []string{"-DNO_TAKEOVER", "-DOLD_GC"},
		violates: []string{"inv_named_exists"},
		what:     "today's GC with grace 0 deletes every unnamed object"},
	{name: "ControlStagedAnyToken", file: "commit.pml", defines: []string{"-DSTAGED", "-DSTAGED_ANY_TOKEN", "-DW2_ONE", "-DGCPASSES=1"}, hash: 23,
		violates: []string{"inv_named_exists"},
		what:     "a commit at token 2 publishes a value staged at token 1, as one that did not check the receipt's token would"},
	{name: "ControlOldRetry", file: "commit.pml", defines: []string{"-DNO_TAKEOVER", "-DOLD_RETRY"},
		violates: []string{"inv_applied_once", "inv_fenced_honest"},
		what:     "a retry ignores After: if X is not in the log it commits again"},
	{name: "ControlOld409", file: "commit.pml", defines: []string{"-DNO_TAKEOVER", "-DOLD_409"},
		violates: []string{"inv_applied_once", "inv_fenced_honest"},
		what:     "a 409 reply is taken as nothing applied"},
	{name: "ControlOldFence", file: "takeover.pml", defines: []string{"-DNO_STALE", "-DFENCE_RETRY", "-DOLD_FENCE"},
		violates: []string{"inv_one_holder", "inv_one_writer"},
		what:     "a fence at an equal token is a no-op success"},
	{name: "ControlPlainError", file: "commit.pml", defines: []string{"-DNO_TAKEOVER", "-DPLAIN_ERROR"},
		violates: []string{"inv_fenced_honest"},
		what:     "a write loop stopped right after a read-back cleared its uncertainty returns a plain error (not applied)"},
	{name: "ControlNoClaim", file: "takeover.pml", defines: []string{"-DNO_STALE", "-DNO_FENCE", "-DNO_CLAIM"},
		violates: []string{"inv_one_holder", "inv_one_writer"},
		what:     "holders acquire with NoFence, and their data commits claim nothing (a second read of the store's highest instead)"},
	{name: "ControlMergeTokens", file: "merged.pml", defines: []string{"-DCLAIM", "-DMERGE_TOKENS"},
		violates: []string{"inv_no_stale_write", "inv_one_writer"},
		what:     "a merged write takes any open commit: a token-1 commit rides after a commit that raises the highest to 2"},
	{name: "ControlMergeDropEntry", file: "merged.pml", defines: []string{"-DMERGE_DROP_ENTRY"},
		violates: []string{"inv_ack_named", "inv_applied_once", "inv_ack_honest", "inv_fenced_honest"},
		what:     "a merged write applies its second commit's change but leaves out its log entry"},
	{name: "ControlMergeNoPending", file: "merged.pml", defines: []string{"-DMERGE_NO_PENDING"},
		violates: []string{"inv_fenced_honest"},
		what:     "a merged commit failed at its round's deadline is reported not applied unless uncertain, though its last write may still land"},

	// Coverage: the correct model's scenarios reach these events.
	{name: "ReachInFlightLands", file: "commit.pml", defines: []string{"-DNO_TAKEOVER"}, reach: 1,
		what: "a request lands after its writer gave up on its reply"},
	{name: "ReachRetryAcksEarlierAttempt", file: "commit.pml", defines: []string{"-DNO_TAKEOVER"}, reach: 2,
		what: "a retry acknowledges a commit that an earlier attempt's request landed"},
	{name: "ReachAckOfOtherAttemptsObject", file: "commit.pml", defines: []string{"-DNO_TAKEOVER"}, reach: 3,
		what: "an attempt acknowledges while the object named is another attempt's, not its own upload"},
	{name: "ReachClaimed", file: "takeover.pml", defines: []string{"-DNO_STALE", "-DFENCE_RETRY"}, reach: 4,
		what: "a takeover is refused: token already claimed by another acquisition"},
	{name: "ReachClaimedNoFence", file: "takeover.pml", defines: []string{"-DNO_STALE", "-DNO_FENCE"}, reach: 4,
		what: "a NoFence holder's data commit is refused: token already claimed by another acquisition"},
	{name: "ReachGCTokenRule", file: "commit.pml", defines: []string{"-DW2_ONE", "-DGCPASSES=1"}, reach: 5,
		what: "GC deletes an object by the token rule"},
	{name: "ReachGCLogRule", file: "commit.pml", defines: []string{"-DNO_TAKEOVER"}, reach: 6,
		what: "GC deletes an object by the log rule"},
	{name: "ReachMergedInFlightLands", file: "merged.pml", reach: 7,
		what: "a merged write lands after its writer gave up on its reply"},
	{name: "ReachMergedSettledTwoWays", file: "merged.pml", reach: 8,
		what: "one read-back finds one commit of a merged write landed and the other unknown (its entry left the log)"},
	{name: "ReachMergedNotApplied", file: "merged.pml", defines: []string{"-DCLAIM"}, reach: 9,
		what: "a group commit fails not applied at its round's deadline (honestly: its write can no longer land, or was never sent)"},
}

// TestModel runs every check. A check that must pass fails on any error
// and on any sign that the search was not exhaustive.
func TestModel(t *testing.T) {
	for _, tool := range []string{"spin", "cc"} {
		if _, err := exec.LookPath(tool); err != nil {
			msg := fmt.Sprintf("model: %s is not on PATH; install it (Debian: apt-get install -y spin, and a C compiler) to model-check the protocol", tool)
			if os.Getenv(spinEnv) == "1" {
				t.Fatalf("%s (%s=1: required)", msg, spinEnv)
			}
			t.Skipf("%s; with %s=1 this is a failure", msg, spinEnv)
		}
	}
	srcs, err := filepath.Glob("*.pml")
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no .pml files: %v", err)
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if c.long && os.Getenv(longEnv) != "1" {
				t.Skipf("a long check (minutes, gigabytes); set %s=1 to run it", longEnv)
			}
			t.Parallel()
			run(t, c, srcs)
		})
	}
}

// result is what pan reported.
type result struct {
	errors, stored, transitions, depth int
	vector                             int
	complete                           bool   // no "Search not completed"
	depthTooSmall                      bool   // pan hit -m
	violated                           string // the failed assertion's expression
	elapsed                            float64
	out                                string
}

var (
	reErrors      = regexp.MustCompile(`depth reached (\d+), errors: (\d+)`)
	reStored      = regexp.MustCompile(`(\d+) states, stored`)
	reTransitions = regexp.MustCompile(`(\d+) transitions \(= stored\+matched\)`)
	reVector      = regexp.MustCompile(`State-vector (\d+) byte`)
	reViolated    = regexp.MustCompile(`assertion violated (\S+)`)
	reElapsed     = regexp.MustCompile(`pan: elapsed time ([0-9.e+]+) seconds`)
)

func parse(out string) (result, error) {
	r := result{out: out, complete: !strings.Contains(out, "Search not completed")}
	r.depthTooSmall = strings.Contains(out, "max search depth too small")
	m := reErrors.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("no error count in pan's output")
	}
	r.depth, _ = strconv.Atoi(m[1])
	r.errors, _ = strconv.Atoi(m[2])
	if m := reStored.FindStringSubmatch(out); m != nil {
		r.stored, _ = strconv.Atoi(m[1])
	}
	if m := reTransitions.FindStringSubmatch(out); m != nil {
		r.transitions, _ = strconv.Atoi(m[1])
	}
	if m := reVector.FindStringSubmatch(out); m != nil {
		r.vector, _ = strconv.Atoi(m[1])
	}
	if m := reViolated.FindStringSubmatch(out); m != nil {
		r.violated = m[1]
	}
	if m := reElapsed.FindStringSubmatch(out); m != nil {
		r.elapsed, _ = strconv.ParseFloat(m[1], 64)
	}
	return r, nil
}

func run(t *testing.T, c check, srcs []string) {
	dir := t.TempDir()
	for _, src := range srcs {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, src), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defines := slices.Clone(c.defines)
	if c.reach != 0 {
		defines = append(defines, fmt.Sprintf("-DREACH=%d", c.reach))
	}
	t.Logf("%s %s: %s", c.file, strings.Join(defines, " "), c.what)

	start := time.Now()
	sh(t, dir, "spin", append(append([]string{"-a"}, defines...), c.file)...)
	opt := c.opt
	if opt == "" {
		opt = "-Og"
	}
	// -w: pan.c's warnings are spin's business, not ours. -DSAFETY: safety
	// properties only (assertions, invalid end states). -DCOLLAPSE:
	// lossless compression of stored states. No -DBITSTATE, no -DHC:
	// the search is exhaustive.
	sh(t, dir, "cc", "-w", opt, "-DSAFETY", "-DCOLLAPSE", "-o", "pan", "pan.c")
	built := time.Since(start)

	hash := c.hash
	if hash == 0 {
		hash = 21
	}
	// -m: the depth bound, far above the deepest path (under 900); pan
	// says "max search depth too small" if a path reaches it.
	out, _ := runOut(t, dir, "./pan", "-m100000", fmt.Sprintf("-w%d", hash))
	searched := time.Since(start) - built
	r, err := parse(out)
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	t.Logf("%d states stored, %d transitions, depth %d, state vector %d bytes; spin -a and cc %.1fs, pan %.1fs",
		r.stored, r.transitions, r.depth, r.vector, built.Seconds(), searched.Seconds())
	if r.depthTooSmall {
		t.Fatalf("pan: max search depth too small: the search was cut short\n%s", out)
	}

	switch {
	case c.violates == nil && c.reach == 0:
		if r.errors != 0 {
			t.Errorf("the correct model has %d error(s): %s (%s)", r.errors, r.violated, invariants[r.violated])
			story(t, dir, c.file, defines)
			return
		}
		if !r.complete || !strings.Contains(out, "Full statespace search") {
			t.Fatalf("the search is not complete:\n%s", out)
		}
		if !strings.Contains(out, "invalid end states\t+") || !strings.Contains(out, "assertion violations\t+") {
			t.Fatalf("pan did not check assertions and invalid end states:\n%s", out)
		}
	case c.reach != 0:
		if r.errors == 0 || r.violated != "0" {
			t.Fatalf("the search never reached event %d (%s): the scenario would pass vacuously\n%s", c.reach, c.what, out)
		}
		story(t, dir, c.file, defines)
	default:
		if r.errors == 0 {
			t.Fatalf("the control found no violation; it should violate %v\n%s", c.violates, out)
		}
		if !slices.Contains(c.violates, r.violated) {
			t.Errorf("the control violated %q, want one of %v", r.violated, c.violates)
		}
		t.Logf("violated %s: %s", r.violated, invariants[r.violated])
		story(t, dir, c.file, defines)
	}
}

// story replays the trail with spin and logs its EV lines: what happened,
// step by step.
func story(t *testing.T, dir, file string, defines []string) {
	t.Helper()
	out, err := runOut(t, dir, "spin", append(append([]string{"-t"}, defines...), file)...)
	if err != nil {
		t.Logf("spin -t: %v", err)
	}
	var b strings.Builder
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "EV "):
			b.WriteString("\t" + strings.TrimPrefix(line, "EV ") + "\n")
		case strings.Contains(line, "assertion violated"):
			b.WriteString("\t" + line + "\n")
		}
	}
	t.Logf("trail:\n%s", b.String())
}

func sh(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	if out, err := runOut(t, dir, name, args...); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func runOut(t *testing.T, dir, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	err := cmd.Run()
	return buf.String(), err
}
