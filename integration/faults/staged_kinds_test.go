package faults

import (
	"fmt"

	"github.com/fencedstore/fence/integration/faults/internal/spec"
)

// The staged kind and its negative control: every writer is a job whose
// workers stage values under its lease's token and whose committer
// publishes their receipts as one commit per round (faultbin's
// staged.go). Each lease ends with a round staged and never committed,
// and the writer's next lease of that domain first tries to publish
// those receipts, at its own, newer token.
func init() {
	kinds = append(kinds,
		&kind{
			name: "staged",
			// sigstop's faults: a stubborn job stopped past its TTL and
			// resumed once its domain was taken over, whose workers go
			// on staging at the stale token and whose committer goes on
			// committing, which must be fenced; and writer 1 stopping
			// itself with its round staged, before its commit's
			// manifest write, resumed once its domain has a higher
			// token. Receipts left over from an older token must be
			// refused; the collector (grace 0) runs beside, as in every
			// kind.
			faultTTLs: 3,
			writers: func(r *run, i int, w *spec.Writer) {
				stagedWriters(r, i, w)
				pausePoint(r, i, w)
			},
			inject: stopStubbornHolder,
			bit: func(rep *report) (bool, string) {
				st, s := rep.ManifestPuts, rep.Staleness
				return s.Windows > 0 && st["staged_published"] > 0, stagedText(rep) +
					fmt.Sprintf("; %d stale-holder windows, %d stale commits attempted", s.Windows, s.CommitsAttempt)
			},
		},
		&kind{
			name: "control-staged-skip-check", control: spec.BreakStagedSkipCheck,
			// The staged workload with a Store that publishes receipts
			// unchecked (testhook.SkipReceiptCheck): the leftover
			// receipts of an older token, which the collector deletes
			// once that token is fenced, are published by the next
			// lease's first commit. Every lease of a writer with
			// leftovers goes back to their domain, so that it bites in
			// every run.
			mustCatch: []string{"I3", "I9", "I4"},
			faultTTLs: 2.5,
			writers:   stagedWriters,
			inject:    func(*run) error { return nil },
			bit: func(rep *report) (bool, string) {
				return rep.ManifestPuts["stale_receipts_accepted"] > 0, stagedText(rep)
			},
		},
	)
}

// stagedWriters makes writer w stage, with 3 to 10 rounds per lease:
// shorter leases than the other kinds', so that more leases find
// receipts left over by an earlier one.
func stagedWriters(_ *run, _ int, w *spec.Writer) {
	w.Staged, w.CommitsMin, w.CommitsMax = true, 3, 10
}

// stagedText describes what the staged workload did, from the writers'
// counters.
func stagedText(rep *report) string {
	st := rep.ManifestPuts
	return fmt.Sprintf("%d values staged (%d stages fenced, %d failed), %d rounds committed (%d fenced), %d receipts published, %d rounds abandoned; %d commits of receipts from an older token: %d refused, %d accepted, %d ended otherwise",
		st["staged_values"], st["staged_stage_fenced"], st["staged_stage_error"], st["staged_rounds"], st["staged_rounds_fenced"], st["staged_published"], st["staged_abandoned"],
		st["stale_receipt_commits"], st["stale_receipts_refused"], st["stale_receipts_accepted"], st["stale_receipts_other"])
}
