package faults

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// envControls asks TestControls to run every negative control this many
// times.
const envControls = "FENCE_CONTROLS"

// controlTally is what N runs of one negative control did.
type controlTally struct {
	name                 string
	runs, bites, catches int
	caughtWithoutBite    int
	missedBites, replays []string
}

// TestControls measures the negative controls instead of hoping: with
// FENCE_CONTROLS=N (docs/faults.md) it runs every control N times, each
// with a fresh seed, and prints per control how many runs there were,
// how many bit (the fault did what it is meant to, by the kind's own
// criterion) and how many were caught. It fails when a control that bit
// was missed (catches below bites) or never bit. Unlike TestFaults, a run
// that did not bite is not run again: it is counted.
func TestControls(t *testing.T) {
	raw := os.Getenv(envControls)
	if raw == "" {
		t.Skipf("faults: set %s=N to run every negative control N times (docs/faults.md)", envControls)
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a number of runs, 1 or more", envControls, raw)
	}
	env := loadEnv(t)
	var controls []*kind
	for _, k := range kinds {
		if k.control != "" && (len(env.kinds) == 0 || slices.Contains(env.kinds, k.name)) {
			controls = append(controls, k)
		}
	}
	t.Logf("suite seed %d (replay one run: %s=%d %s=KIND %s=ROUND %s=1)", env.seed, envSeed, env.seed, envKinds, envRound, envControls)
	s := newSuite(t, env)
	tallies := make([]*controlTally, len(controls))
	for i, k := range controls {
		tallies[i] = &controlTally{name: k.name}
	}
	for round := env.round; round < env.round+n; round++ {
		for i, k := range controls {
			tl := tallies[i]
			t.Run(fmt.Sprintf("%s/%d", k.name, round), func(t *testing.T) {
				rep := runOne(t, s, k, round)
				t.Log("\n" + rep.summary())
				tl.runs++
				caught := rep.Verdict == "caught"
				if rep.Bit {
					tl.bites++
				}
				switch {
				case caught && rep.Bit:
					tl.catches++
				case caught:
					tl.caughtWithoutBite++
				case rep.Bit:
					tl.missedBites = append(tl.missedBites, fmt.Sprintf("round %d", round))
					t.Errorf("negative control %s bit and went undetected (%s); replay: %s=%d %s=%s %s=%d %s=1 go test -count=1 -run 'TestControls$' -v ./integration/faults/ (with the servers of deploy/local/servers.sh)",
						k.name, rep.BitWhy, envSeed, env.seed, envKinds, k.name, envRound, round, envControls)
				}
			})
		}
	}
	t.Log("\n" + controlsTable(tallies, env.seed))
	for _, tl := range tallies {
		if tl.bites == 0 {
			t.Errorf("negative control %s never bit in %d runs: it proves nothing about the checks", tl.name, tl.runs)
		}
	}
}

// controlsTable prints the tallies as a Markdown table.
func controlsTable(tallies []*controlTally, seed uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "negative controls, suite seed %d\n\n", seed)
	b.WriteString("| control | runs | bit | caught when it bit | caught without a bite | bit and missed |\n|---|---|---|---|---|---|\n")
	for _, tl := range tallies {
		missed := "none"
		if len(tl.missedBites) > 0 {
			missed = strings.Join(tl.missedBites, ", ")
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", tl.name, tl.runs, tl.bites, tl.catches, tl.caughtWithoutBite, missed)
	}
	return b.String()
}
