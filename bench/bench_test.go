package bench

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// tiny is a configuration that runs every case in well under a second on
// a local backend.
func tiny(b driver.Backend) Config {
	return Config{
		Backend:           b,
		Iterations:        2,
		PutSizes:          []int64{KiB, 3 * KiB},
		GetSizes:          []int64{KiB, 2 * MiB},
		CommitKeys:        3,
		CommitKeySize:     100,
		CommitIterations:  2,
		Domains:           []int{1, 3},
		Writers:           []int{4},
		ThroughputTime:    time.Millisecond,
		ThroughputRounds:  1,
		LiveKeys:          []int{2, 5},
		MemorySize:        MiB,
		Receipts:          3,
		ReceiptIterations: 2,
		LargeReceipts:     5,
		// Three parts, the smallest S3 allows but the last.
		GatewayMultipartSize: 15 * MiB,
		GatewayPartSize:      5 * MiB,
	}
}

// tinyIDs are the rows tiny produces, in order.
var tinyIDs = []string{
	"put/1KiB", "put/3KiB",
	"commit/3x100B",
	"get/1KiB", "get/1KiB/cold", "get/2MiB",
	"lease/acquire", "lease/acquire+release", "lease/takeover",
	"domains/1", "domains/3",
	"writers/4",
	"livekeys/2", "livekeys/5",
	"job/100B", "job/100B/nofence",
	"process/put/100B", "process/put/100B/nocache",
	"memory/put/1MiB", "memory/get/1MiB",
	"receipts/3x100B", "receipts/5x100B/memory",
	"gateway/put/1KiB", "gateway/put/64KiB", "gateway/multipart/15MiB", "gateway/multipart/15MiB/memory", "gateway/commit",
}

// Which rows have no floor (throughput and memory rows), and which have
// the client's allocations measured for each side (in-process latency
// rows: the process rows have the children's CPU only, the gateway's
// commit, in its child, neither).
func wantFloor(row Row) bool {
	return row.Case != CaseDomains && row.Case != CaseWriters && row.Case != CaseGateway && row.Metric != metricRSS
}

// wantPlain: every row has a plain side but the large commit of
// receipts, which prints its time and peak RSS alone, the gateway's
// commit, which prints its time alone, and the gateway's peak RSS,
// which is compared with its bound.
func wantPlain(row Row) bool {
	return row.ID != "receipts/5x100B/memory" && row.ID != "gateway/commit" && row.ID != "gateway/multipart/15MiB/memory"
}
func wantAllocs(row Row) bool {
	return row.Metric == metricP50 && row.Case != CaseLease && row.Case != CaseProcess && row.ID != "gateway/commit"
}

func rowIDs(rep Report) []string {
	var ids []string
	for _, r := range rep.Rows {
		ids = append(ids, r.ID)
	}
	return ids
}

// checkReport checks that rep has every row of tiny, measured on both
// sides and against its floor (memory rows: when memoryMeasured is true;
// process rows: when processMeasured is; gateway rows: when the store is
// an S3 store), and that it renders and marshals.
func checkReport(t *testing.T, rep Report, memoryMeasured, processMeasured bool) {
	t.Helper()
	gatewayMeasured := strings.HasPrefix(rep.Store, "s3://") || strings.HasPrefix(rep.Store, "minio://")
	if got := rowIDs(rep); !slices.Equal(got, tinyIDs) {
		t.Fatalf("rows:\n got %v\nwant %v", got, tinyIDs)
	}
	table := rep.Table()
	for _, row := range rep.Rows {
		if row.Error != "" {
			t.Errorf("%s: error %s", row.ID, row.Error)
		}
		if !strings.Contains(table, row.Name) {
			t.Errorf("table lacks row %q:\n%s", row.Name, table)
		}
		if row.Case == CaseGateway && !gatewayMeasured {
			if row.Skipped == "" || row.Fenced.N != 0 || !strings.Contains(row.Skipped, "s3:// or minio://") {
				t.Errorf("%s: want a row skipped for want of an S3 store, got %+v", row.ID, row)
			}
			continue
		}
		if row.Metric == metricRSS && !memoryMeasured || row.Case == CaseProcess && !processMeasured {
			if row.Skipped == "" || row.Fenced.N != 0 {
				t.Errorf("%s: want a skipped row, got %+v", row.ID, row)
			}
			continue
		}
		if row.Fenced.N == 0 || row.Baseline == "" || wantPlain(row) && (row.Plain.N == 0 || row.Ratio <= 0) {
			t.Errorf("%s: want both sides measured and a ratio, got %+v", row.ID, row)
		}
		if !wantPlain(row) && (row.Plain.N != 0 || (row.Ratio != 0) != (row.Bound > 0) || row.Fenced.N != 1 || row.Fenced.P50 <= 0) {
			t.Errorf("%s: want one fenced commit timed and no plain side, got %+v", row.ID, row)
		}
		if hasFloor := row.Floor.N > 0 && row.FloorRatio > 0 && row.FloorBaseline != "" && row.FloorTarget != nil; hasFloor != wantFloor(row) {
			t.Errorf("%s: floor %+v (%s), ratio %v; want one: %v", row.ID, row.Floor, row.FloorBaseline, row.FloorRatio, wantFloor(row))
		}
		if wantFloor(row) && !strings.Contains(table, row.FloorBaseline) {
			t.Errorf("table lacks the floor of %q:\n%s", row.Name, table)
		}
		if wantAllocs(row) && (row.Fenced.AllocBytes <= 0 || row.Fenced.Allocs <= 0 || row.Plain.AllocBytes <= 0 || row.Plain.Allocs <= 0 || wantFloor(row) && row.Floor.AllocBytes <= 0) {
			t.Errorf("%s: want allocations measured on every side, got fenced %+v plain %+v floor %+v", row.ID, row.Fenced, row.Plain, row.Floor)
		}
		if row.Case == CaseProcess && (row.Fenced.CPU <= 0 || row.Plain.CPU <= 0 || row.Floor.CPU <= 0) {
			t.Errorf("%s: want the children's CPU on every side, got fenced %+v plain %+v floor %+v", row.ID, row.Fenced, row.Plain, row.Floor)
		}
		if row.Metric == metricRSS && (row.Fenced.PeakRSS <= 0 || wantPlain(row) && row.Plain.PeakRSS <= 0) {
			t.Errorf("%s: want peak RSS on both sides, got %+v", row.ID, row)
		}
		if row.Metric == metricP50 && row.Fenced.N != 2 && row.ID != "gateway/commit" {
			t.Errorf("%s: %d fenced iterations, want 2", row.ID, row.Fenced.N)
		}
		// The targets are for its own sizes and counts; tiny
		// shares only these with it.
		wantTarget := row.ID == "put/1KiB" || row.ID == "gateway/put/1KiB" || row.ID == "get/1KiB" || row.ID == "get/1KiB/cold" || row.ID == "lease/acquire" || row.ID == "lease/takeover"
		if (row.Target != nil) != wantTarget {
			t.Errorf("%s: target %+v, want one: %v", row.ID, row.Target, wantTarget)
		}
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rowIDs(back), tinyIDs) || back.Rows[0].Fenced != rep.Rows[0].Fenced {
		t.Errorf("JSON round trip lost rows: %s", data)
	}
}

func TestRunMemstore(t *testing.T) {
	b := memstore.New()
	rep, err := Run(t.Context(), tiny(b), io.Discard)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, rep.Table())
	}
	checkReport(t, rep, false, false)
	if keys := b.Keys(); len(keys) != 0 {
		t.Errorf("cleanup left %d objects, for example %q", len(keys), keys[0])
	}
	if rep.Cleanup.Deleted == 0 || rep.Cleanup.Error != "" || len(rep.Cleanup.Left) != 0 {
		t.Errorf("cleanup: %+v", rep.Cleanup)
	}
}

// TestRunFilestore also runs the memory case, in child processes of this
// test binary.
func TestRunFilestore(t *testing.T) {
	b, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), tiny(b), io.Discard)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, rep.Table())
	}
	checkReport(t, rep, true, false)
	var left []string
	if err := b.List(t.Context(), "", func(o driver.ObjectInfo) error {
		left = append(left, o.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("cleanup left %d objects: %q", len(left), left)
	}
}

// TestRunNoBucket: a store whose bucket (here, a file store's directory)
// is gone ends the run before its first row, with one error that says
// so, rather than the same error in every row.
func TestRunNoBucket(t *testing.T) {
	dir := t.TempDir()
	b, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), tiny(b), io.Discard)
	if !errors.Is(err, objstore.ErrNoBucket) || len(rep.Rows) != 0 {
		t.Fatalf("Run on a store without its directory: %d rows, %v; want none and ErrNoBucket", len(rep.Rows), err)
	}
}

func TestRunSelectedCases(t *testing.T) {
	cfg := tiny(memstore.New())
	cfg.Cases = []Case{CaseGet, CasePut}
	rep, err := Run(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Cases run in their fixed order, whatever the order asked.
	want := []string{"put/1KiB", "put/3KiB", "get/1KiB", "get/1KiB/cold", "get/2MiB"}
	if got := rowIDs(rep); !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}

// TestRunFailingCase: a case that fails records its error, the others
// still run, Run returns an error naming the row, and cleanup still
// deletes everything.
func TestRunFailingCase(t *testing.T) {
	b := memstore.New()
	boom := errors.New("boom")
	fb := faulty.New(b)
	fb.Add(faulty.Rule{
		Op:    faulty.OpPut,
		Match: func(c faulty.Call) bool { return strings.Contains(c.Key, "/plain/commit/") },
		Every: true,
		Fault: faulty.Fault{Err: boom},
	})
	cfg := tiny(fb)
	cfg.Cases = []Case{CasePut, CaseCommit, CaseGet}
	rep, err := Run(t.Context(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "commit 3 x 100 B") {
		t.Fatalf("Run error %v, want one naming the commit row", err)
	}
	for _, row := range rep.Rows {
		if failed := row.Error != ""; failed != (row.Case == CaseCommit) {
			t.Errorf("%s: error %q", row.ID, row.Error)
		}
	}
	if len(rep.Rows) != 6 {
		t.Errorf("%d rows, want 6", len(rep.Rows))
	}
	if !strings.Contains(rep.Table(), "boom") {
		t.Errorf("table does not show the error:\n%s", rep.Table())
	}
	if keys := b.Keys(); len(keys) != 0 {
		t.Errorf("cleanup left %q", keys)
	}
}

func TestRunCancelled(t *testing.T) {
	b := memstore.New()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rep, err := Run(ctx, tiny(b), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run error %v, want context.Canceled", err)
	}
	if len(rep.Rows) != 0 {
		t.Errorf("a cancelled run measured %v", rowIDs(rep))
	}
}

func TestRunInvalidConfig(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no backend":     {},
		"unknown case":   {Backend: memstore.New(), Cases: []Case{"nope"}},
		"bad prefix":     {Backend: memstore.New(), Prefix: "a/_fence/b"},
		"zero size":      {Backend: memstore.New(), PutSizes: []int64{0}},
		"zero domains":   {Backend: memstore.New(), Domains: []int{0}},
		"zero writers":   {Backend: memstore.New(), Writers: []int{0}},
		"negative keys":  {Backend: memstore.New(), LiveKeys: []int{-1}},
		"too many parts": {Backend: memstore.New(), GatewayMultipartSize: 10001 * MiB, GatewayPartSize: MiB},
	} {
		if _, err := Run(t.Context(), cfg, nil); err == nil {
			t.Errorf("%s: Run accepted %+v", name, cfg)
		}
	}
}

// near reports whether a and b agree to within rounding.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// fakeClock advances only when told to.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestInterleaveFakeTimings: sides alternate which goes first, the
// warm-up is not timed, and the row's figures and ratio follow from the
// timings.
func TestInterleaveFakeTimings(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	r := &runner{now: clk.now}
	var order []string
	fenced := func(_ context.Context, i int) error {
		order = append(order, "f")
		clk.advance(time.Duration(3*(i+2)) * time.Millisecond) // warm-up 3 ms, then 6, 9, 12, 15 ms
		return nil
	}
	plain := func(_ context.Context, i int) error {
		order = append(order, "p")
		clk.advance(time.Duration(i+2) * time.Millisecond) // warm-up 1 ms, then 2, 3, 4, 5 ms
		return nil
	}
	lat, err := r.interleave(t.Context(), 4, fenced, plain)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ""); got != "fp"+"fp"+"pf"+"fp"+"pf" {
		t.Errorf("call order %s", got)
	}
	ms := func(ns ...int) []time.Duration {
		var out []time.Duration
		for _, n := range ns {
			out = append(out, time.Duration(n)*time.Millisecond)
		}
		return out
	}
	if !slices.Equal(lat[0], ms(6, 9, 12, 15)) || !slices.Equal(lat[1], ms(2, 3, 4, 5)) {
		t.Fatalf("latencies %v", lat)
	}
	row := latencyRow("put/1KiB", "put 1 KiB", "plain", lat[0], lat[1])
	judge(&row)
	f := row.Fenced
	if f.N != 4 || f.P50 != 9*time.Millisecond || f.P90 != 15*time.Millisecond || f.P99 != 15*time.Millisecond || !near(f.OpsPerSec, 4/0.042) {
		t.Errorf("fenced %+v, want 4 samples, p50 9ms, p90 and p99 15ms, %v ops/s", f, 4/0.042)
	}
	if row.Plain.P50 != 3*time.Millisecond || !near(row.Plain.OpsPerSec, 4/0.014) {
		t.Errorf("plain %+v", row.Plain)
	}
	if row.Ratio != 3 {
		t.Errorf("ratio %v, want 3", row.Ratio)
	}
	if row.Target == nil || row.Target.Met {
		t.Errorf("target %+v, want <= 2.2x not met", row.Target)
	}
}

func TestInterleaveStopsAtError(t *testing.T) {
	r := &runner{now: time.Now}
	boom := errors.New("boom")
	calls := 0
	_, err := r.interleave(t.Context(), 10,
		func(context.Context, int) error { calls++; return nil },
		func(_ context.Context, i int) error {
			if i == 1 {
				return boom
			}
			return nil
		})
	// Iteration 1 starts with the failing side.
	if !errors.Is(err, boom) || calls != 2 {
		t.Errorf("err %v after %d calls", err, calls)
	}
}

func TestPhaseFakeTimings(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	r := &runner{now: clk.now}
	// One worker, so the fake clock is not shared; each call takes 2 ms
	// and the phase lasts 5 ms: calls end at 2, 4, 6 ms.
	res, err := r.phase(t.Context(), 1, 5*time.Millisecond, func(context.Context, int) error {
		clk.advance(2 * time.Millisecond)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	st := summarizeOver(res.lat, res.wall)
	if st.N != 3 || res.wall != 6*time.Millisecond || !near(st.OpsPerSec, 500) {
		t.Errorf("phase: %+v, wall %v", st, res.wall)
	}
	row := throughputRow("domains/64", "64 domains", "plain", Stats{OpsPerSec: 70, N: 1}, Stats{OpsPerSec: 100, N: 1})
	judge(&row)
	if !near(row.Ratio, 0.7) || row.Target == nil || row.Target.Met {
		t.Errorf("throughput row %+v target %+v", row, row.Target)
	}
}

func TestSummarize(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	st := summarize(lat)
	if st.N != 100 || st.P50 != 50*time.Millisecond || st.P90 != 90*time.Millisecond || st.P99 != 99*time.Millisecond {
		t.Errorf("%+v", st)
	}
	if !near(st.OpsPerSec, 100/5.05) {
		t.Errorf("ops/s %v, want %v", st.OpsPerSec, 100/5.05)
	}
	if st := summarize([]time.Duration{7}); st.P50 != 7 || st.P99 != 7 {
		t.Errorf("one sample: %+v", st)
	}
	if st := summarize(nil); st != (Stats{}) {
		t.Errorf("no samples: %+v", st)
	}
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		row  Row
		text string // "" for no target
		met  bool
	}{
		{Row{ID: "put/1KiB", Ratio: 1.3, Fenced: Stats{N: 1}}, "<= 1.3x", true},
		{Row{ID: "put/1KiB", Ratio: 1.4, Fenced: Stats{N: 1}}, "<= 1.3x", false},
		{Row{ID: "put/1KiB", Fenced: Stats{N: 1}}, "", false}, // no baseline
		{Row{ID: "put/1KiB", Ratio: 1, Error: "x", Fenced: Stats{N: 1}}, "", false},
		{Row{ID: "put/2KiB", Ratio: 1, Fenced: Stats{N: 1}}, "", false},
		{Row{ID: "commit/100x1KiB", Ratio: 0.25, Fenced: Stats{N: 1}}, "<= 0.3x", true},
		{Row{ID: "domains/64", Ratio: 0.9, Fenced: Stats{N: 1}}, ">= 0.9x", true},
		{Row{ID: "domains/64", Ratio: 0.8, Fenced: Stats{N: 1}}, ">= 0.9x", false},
		{Row{ID: "livekeys/10000", Ratio: 1.1, Baseline: liveKeysBaseline(10), Fenced: Stats{N: 1}}, "<= 1.2x", true},
		{Row{ID: "livekeys/10000", Ratio: 1.1, Baseline: liveKeysBaseline(5), Fenced: Stats{N: 1}}, "", false},
		{Row{ID: "memory/put/1GiB", Ratio: 1.05, Fenced: Stats{N: 1, PeakRSS: 64 * MiB}}, "<= 1.05x", true},
		{Row{ID: "memory/get/1GiB", Ratio: 1.06, Fenced: Stats{N: 1, PeakRSS: 65 * MiB}}, "<= 1.05x", false},
		{Row{ID: "receipts/1000x1KiB", Ratio: 1.2, Fenced: Stats{N: 1}}, "<= 1.2x", true},
		{Row{ID: "receipts/1000x1KiB", Ratio: 1.21, Fenced: Stats{N: 1}}, "<= 1.2x", false},
		{Row{ID: "receipts/10000x1KiB/memory", Fenced: Stats{N: 1, PeakRSS: 80 * MiB}}, "", false},
	} {
		row := tc.row
		judge(&row)
		switch {
		case tc.text == "" && row.Target != nil:
			t.Errorf("%+v: target %+v, want none", tc.row, row.Target)
		case tc.text != "" && (row.Target == nil || row.Target.Text != tc.text || row.Target.Met != tc.met):
			t.Errorf("%+v: target %+v, want %s met=%v", tc.row, row.Target, tc.text, tc.met)
		}
	}
}

func TestParseCases(t *testing.T) {
	for in, want := range map[string][]Case{
		"":              AllCases,
		"all":           AllCases,
		"put":           {CasePut},
		" get, put,get": {CaseGet, CasePut},
		"gateway":       {CaseGateway},
	} {
		got, err := ParseCases(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseCases(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseCases("put,nope"); err == nil || !strings.Contains(err.Error(), "livekeys") {
		t.Errorf("ParseCases(put,nope): %v, want an error listing the cases", err)
	}
}

func TestNames(t *testing.T) {
	for n, want := range map[int64]string{KiB: "1KiB", 64 * MiB: "64MiB", GiB: "1GiB", 1500: "1500B", 3 * KiB / 2: "1536B"} {
		if got := sizeID(n); got != want {
			t.Errorf("sizeID(%d) = %s, want %s", n, got, want)
		}
	}
	if got := sizeName(64 * MiB); got != "64 MiB" {
		t.Errorf("sizeName = %s", got)
	}
	for n, want := range map[int]string{7: "7", 1000: "1,000", 10000: "10,000", 1234567: "1,234,567"} {
		if got := countName(n); got != want {
			t.Errorf("countName(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestStreamReader(t *testing.T) {
	const size = 3*blockSize + 17
	s := newStream(size)
	a, err := io.ReadAll(s)
	if err != nil || len(a) != size {
		t.Fatalf("read %d bytes, %v", len(a), err)
	}
	if _, err := s.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(s)
	if !slices.Equal(a, b) {
		t.Error("a rewound stream reads other bytes")
	}
	if !slices.Equal(a[blockSize:2*blockSize], block()) {
		t.Error("the stream does not repeat the block")
	}
}

func TestProcKiB(t *testing.T) {
	status := []byte("Name:\tx\nVmPeak:\t  100 kB\nVmHWM:\t    2048 kB\nVmRSS:\t 1 kB\n")
	if got := procKiB(status, "VmHWM:"); got != 2*MiB {
		t.Errorf("VmHWM %d", got)
	}
	if got := procKiB(status, "MemTotal:"); got != 0 {
		t.Errorf("missing field: %d", got)
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{128 * MiB: "128 MiB", 40448 * KiB: "39.5 MiB", 1500: "1.5 KiB", 12: "12 B", GiB: "1 GiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %s, want %s", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{
		500 * time.Microsecond: "0.500ms", 3456 * time.Microsecond: "3.46ms", 34560 * time.Microsecond: "34.6ms",
		345 * time.Millisecond: "345ms", 5476 * time.Millisecond: "5.48s", 12 * time.Second: "12.0s",
	} {
		if got := formatDur(d); got != want {
			t.Errorf("formatDur(%v) = %s, want %s", d, got, want)
		}
	}
}

func TestDefaults(t *testing.T) {
	d := Defaults()
	if !slices.Equal(d.Cases, AllCases) || !slices.Equal(d.PutSizes, []int64{KiB, MiB, 64 * MiB}) || d.Iterations != 100 ||
		!slices.Equal(d.Domains, []int{1, 8, 64}) || !slices.Equal(d.LiveKeys, []int{10, 1000, 10000}) || d.MemorySize != GiB {
		t.Errorf("Defaults() = %+v", d)
	}
	if d.Receipts != 1000 || d.ReceiptIterations != 10 || d.LargeReceipts != 10000 || !slices.Contains(d.Cases, CaseReceipts) {
		t.Errorf("Defaults() receipts: %d receipts, %d iterations, %d in the large commit; cases %v", d.Receipts, d.ReceiptIterations, d.LargeReceipts, d.Cases)
	}
	// The target rows are the default rows.
	for _, id := range []string{"put/64MiB", "get/1KiB", "commit/100x1KiB", "domains/64", "livekeys/10000", "memory/get/1GiB", "receipts/1000x1KiB"} {
		if _, ok := targets[id]; !ok {
			t.Errorf("no target for %s", id)
		}
	}
	if d.GatewayMultipartSize != 256*MiB || d.GatewayPartSize != 16*MiB || d.GatewayPartConcurrency != 4 || !slices.Contains(d.Cases, CaseGateway) {
		t.Errorf("Defaults() gateway: %d in parts of %d, %d at a time; cases %v", d.GatewayMultipartSize, d.GatewayPartSize, d.GatewayPartConcurrency, d.Cases)
	}
	for _, id := range []string{"gateway/put/1KiB", "gateway/multipart/256MiB", "gateway/multipart/256MiB/memory"} {
		if _, ok := targets[id]; !ok {
			t.Errorf("no target for %s", id)
		}
	}
	if got := d.iterations(64 * MiB); got != 16 {
		t.Errorf("iterations(64 MiB) = %d, want 16", got)
	}
	if got := d.iterations(GiB); got != minIterations {
		t.Errorf("iterations(1 GiB) = %d, want %d", got, minIterations)
	}
}

// TestInterleaveOrderVaries: with three sides, each goes first equally
// often, and each follows each of the others within an iteration, so no
// side always runs after the same one.
func TestInterleaveOrderVaries(t *testing.T) {
	r := &runner{now: time.Now}
	var order []int
	side3 := func(s int) side {
		return side{op: func(context.Context, int) error { order = append(order, s); return nil }}
	}
	const n = 30
	if _, err := r.interleaveSides(t.Context(), n, side3(0), side3(1), side3(2)); err != nil {
		t.Fatal(err)
	}
	first := map[int]int{}
	follows := map[[2]int]bool{}
	for it := 1; it <= n; it++ { // iteration 0 of order is the warm-up
		o := order[3*it : 3*it+3]
		first[o[0]]++
		follows[[2]int{o[0], o[1]}], follows[[2]int{o[1], o[2]}] = true, true
	}
	for s := range 3 {
		if first[s] != n/3 {
			t.Errorf("side %d went first %d times of %d, want %d", s, first[s], n, n/3)
		}
		for p := range 3 {
			if p != s && !follows[[2]int{p, s}] {
				t.Errorf("side %d never followed side %d within an iteration (order %v)", s, p, order)
			}
		}
	}
}

// TestReceiptsCaseStagesFreshReceipts: every commit of the receipts row,
// warm-up included, publishes receipts staged for it alone, each checked
// with one HEAD, and the floor makes as many HEADs. On the memory
// backend the large row is skipped: no child process can reopen it.
func TestReceiptsCaseStagesFreshReceipts(t *testing.T) {
	fb := faulty.New(memstore.New())
	var mu sync.Mutex
	staged := map[string]bool{}
	heads := map[string]int{}
	isStaged := func(key string) bool { return strings.Contains(key, "/_fence/v/") && strings.Contains(key, "1-s") }
	fb.Add(faulty.Rule{Every: true, Match: func(c faulty.Call) bool {
		if isStaged(c.Key) {
			mu.Lock()
			switch c.Op {
			case faulty.OpPut:
				staged[c.Key] = true
			case faulty.OpHead:
				heads[c.Key]++
			}
			mu.Unlock()
		}
		return false
	}})
	cfg := tiny(fb)
	cfg.Cases = []Case{CaseReceipts}
	rep, err := Run(t.Context(), cfg, nil)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, rep.Table())
	}
	if got, want := rowIDs(rep), []string{"receipts/3x100B", "receipts/5x100B/memory"}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if row := rep.Rows[1]; row.Skipped == "" || row.Fenced.N != 0 {
		t.Errorf("large row on memstore: %+v, want it skipped", row)
	}
	commits := cfg.ReceiptIterations + 1 // and the warm-up
	if len(staged) != commits*cfg.Receipts {
		t.Errorf("%d values staged, want %d: %d new receipts for each of %d commits", len(staged), commits*cfg.Receipts, cfg.Receipts, commits)
	}
	total := 0
	for key := range staged {
		if heads[key] == 0 {
			t.Errorf("staged object %s was never checked", key)
		}
		total += heads[key]
	}
	if want := 2 * commits * cfg.Receipts; total != want {
		t.Errorf("%d HEADs of staged objects, want %d: one by the commit's check and one by the floor for each", total, want)
	}
}
