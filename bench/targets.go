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
	return latencyStatsRow(id, name, baseline, summarize(fenced), summarize(plain))
}

// latencyStatsRow is latencyRow of summarized sides.
func latencyStatsRow(id, name, baseline string, fenced, plain Stats) Row {
	row := Row{ID: id, Name: name, Metric: metricP50, Baseline: baseline, Fenced: fenced, Plain: plain}
	row.Ratio = ratio(float64(row.Fenced.P50), float64(row.Plain.P50))
	return row
}

// withFloor sets row's floor: what it is and what it measured.
func (row Row) withFloor(baseline string, floor Stats) Row {
	row.FloorBaseline, row.Floor = baseline, floor
	row.FloorRatio = ratio(float64(row.Fenced.P50), float64(floor.P50))
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
	"writers/8":       minRatio(0.8),
	"writers/64":      minRatio(0.9),
	// Only against the commit with 10 live keys; see liveKeysCase.
	"livekeys/10000": {"<= 1.2x", func(r Row) (bool, bool) {
		return r.Ratio <= 1.2, r.Ratio > 0 && r.Baseline == liveKeysBaseline(10)
	}},
	// Within 1.05x the backend's own Put and Get of the same stream.
	"memory/put/1GiB": maxRatio(1.05),
	"memory/get/1GiB": maxRatio(1.05),
	// A job that writes without reading first, with NoFence, costs no
	// more than the same cycle without fence.
	"job/1KiB/nofence": maxRatio(1.0),
	// Publishing staged receipts: within 1.2x of its floor, which is its
	// plain side (receiptsCase).
	"receipts/1000x1KiB": maxRatio(1.2),
	// Through the S3 gateway, against the same client straight to the
	// store (gatewayCase); the gateway's peak RSS within its bound.
	"gateway/put/1KiB":                maxRatio(1.3),
	"gateway/multipart/256MiB":        maxRatio(1.15),
	"gateway/multipart/256MiB/memory": maxRatio(1.0),
}

// floorLimit is the goal for every row with a floor: the fenced
// p50 within this factor of the floor's.
const floorLimit = 1.2

// costLimit is the goal for the client's CPU and allocated bytes
// per small put, against the plain SDK call's.
const costLimit = 2.0

// costTargets are the rows whose client cost the issue sets a goal for.
var costTargets = map[string]bool{"put/1KiB": true}

// judge sets row's Target when the issue has one for it and the row has
// the figures to judge.
func judge(row *Row) {
	judgeFloor(row)
	t, ok := targets[row.ID]
	if !ok || row.Error != "" || row.Fenced.N == 0 {
		return
	}
	if met, applicable := t.met(*row); applicable {
		row.Target = &Target{Text: t.text, Met: met}
	}
}

// judgeFloor sets row's FloorTarget when it has a floor, and its
// CostTarget when the issue sets one and both sides have costs.
func judgeFloor(row *Row) {
	if row.Error != "" || row.Fenced.N == 0 {
		return
	}
	if row.FloorRatio > 0 {
		row.FloorTarget = &Target{Text: fmt.Sprintf("<= %gx", floorLimit), Met: row.FloorRatio <= floorLimit}
	}
	if costTargets[row.ID] && row.Fenced.hasCost() && row.Plain.hasCost() {
		cpu := ratio(float64(row.Fenced.CPU), float64(row.Plain.CPU))
		alloc := ratio(float64(row.Fenced.AllocBytes), float64(row.Plain.AllocBytes))
		row.CostTarget = &Target{Text: fmt.Sprintf("CPU and bytes <= %gx", costLimit), Met: cpu > 0 && cpu <= costLimit && alloc > 0 && alloc <= costLimit}
	}
}
