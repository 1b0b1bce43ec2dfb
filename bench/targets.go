package bench

import (
	"fmt"
	"time"
)

// What a row's Ratio compares.
const (
	metricP50        = "p50"
	metricThroughput = "ops/s"
	metricRSS        = "peak RSS"
)

// latencyRow returns a row whose ratio is fenced p50 over plain p50.
// plain may be nil for a row without a baseline.
func latencyRow(id, name, baseline string, fenced, plain []time.Duration) Row {
	row := Row{ID: id, Name: name, Metric: metricP50, Baseline: baseline, Fenced: summarize(fenced), Plain: summarize(plain)}
	row.Ratio = ratio(float64(row.Fenced.P50), float64(row.Plain.P50))
	return row
}

// throughputRow returns a row whose ratio is fenced ops/s over plain ops/s.
func throughputRow(id, name, baseline string, fenced, plain Stats) Row {
	return Row{ID: id, Name: name, Metric: metricThroughput, Baseline: baseline, Fenced: fenced, Plain: plain,
		Ratio: ratio(fenced.OpsPerSec, plain.OpsPerSec)}
}

// memoryRow returns a row whose ratio is fenced peak RSS over plain.
func memoryRow(id, name, baseline string, fenced, plain Stats) Row {
	return Row{ID: id, Name: name, Metric: metricRSS, Baseline: baseline, Fenced: fenced, Plain: plain,
		Ratio: ratio(float64(fenced.PeakRSS), float64(plain.PeakRSS))}
}

// target is one of the goals, for the row with its ID.
type target struct {
	text string
	// met judges a measured row; it is only called on rows with figures.
	met func(Row) (ok, applicable bool)
}

func maxRatio(limit float64) target {
	return target{fmt.Sprintf("<= %gx", limit), func(r Row) (bool, bool) {
		return r.Ratio <= limit, r.Ratio > 0
	}}
}

func minRatio(limit float64) target {
	return target{fmt.Sprintf(">= %gx", limit), func(r Row) (bool, bool) {
		return r.Ratio >= limit, r.Ratio > 0
	}}
}

func maxRSS(limit int64) target {
	return target{"<= " + formatBytes(limit), func(r Row) (bool, bool) {
		return r.Fenced.PeakRSS <= limit, r.Fenced.PeakRSS > 0
	}}
}

// targets holds the goals of the performance issue (inline values, a
// two-round-trip takeover, large objects at the SDK's speed), on the
// local MinIO and dynalite, by row ID. Rows of other sizes or counts have
// none.
var targets = map[string]target{
	"put/1KiB":        maxRatio(1.3),
	"put/64MiB":       maxRatio(1.05),
	"commit/100x1KiB": maxRatio(0.3),
	"get/1KiB":        maxRatio(1.1),
	"get/1KiB/cold":   maxRatio(1.2),
	"get/64MiB":       maxRatio(1.2),
	"lease/acquire":   maxRatio(1.2),
	"lease/takeover":  maxRatio(2.5),
	"domains/64":      minRatio(0.9),
	// Only against the commit with 10 live keys; see liveKeysCase.
	"livekeys/10000": {"<= 1.2x", func(r Row) (bool, bool) {
		return r.Ratio <= 1.2, r.Ratio > 0 && r.Baseline == liveKeysBaseline(10)
	}},
	"memory/put/1GiB": maxRSS(64 * MiB),
	"memory/get/1GiB": maxRSS(64 * MiB),
}

// judge sets row's Target when the issue has one for it and the row has
// the figures to judge.
func judge(row *Row) {
	t, ok := targets[row.ID]
	if !ok || row.Error != "" || row.Fenced.N == 0 {
		return
	}
	if met, applicable := t.met(*row); applicable {
		row.Target = &Target{Text: t.text, Met: met}
	}
}
