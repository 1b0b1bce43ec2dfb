package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"slices"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// token is the fencing token of every scratch domain but the lease
// case's: the domains are new, so token 1 is the highest.
const token = 1

// Run measures the cases cfg selects and returns the report. Fenced and
// plain iterations alternate within each row, so drift (a warming cache,
// a busy neighbour) hits both sides alike. Progress lines go to out (nil
// for none).
//
// Everything is written under "<cfg.Prefix>/<random>/" in the backend
// (and, for a bucket-lease coordinator, in its backend), and deleted at
// the end, also when ctx is cancelled; scratch DynamoDB items are
// deleted when cfg.DynamoDB is set.
//
// A case that fails records its error in its rows and the run goes on;
// Run then returns the complete report together with an error naming
// the failed rows. A store that cannot be reached or has no bucket ends
// the run before its first row, with a report of no rows; an invalid cfg
// returns no report.
func Run(ctx context.Context, cfg Config, out io.Writer) (Report, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return Report{}, err
	}
	if out == nil {
		out = io.Discard
	}
	r := newRunner(cfg, out)
	rep := Report{
		Store:       describeBackend(cfg.Backend),
		Coordinator: describeCoordinator(r.coord),
		Plain:       r.plain.describe(),
		Scratch:     r.scratch + "/",
		Machine:     machine(),
		Settings:    r.settings(),
		Started:     time.Now(),
	}
	fmt.Fprintf(out, "bench: %s, scratch prefix %s/\n", rep.Store, r.scratch)
	// A store that no request can reach, or whose bucket does not exist,
	// would fail every row the same way: say it once, before any row.
	if err := cfg.Backend.List(ctx, r.scratch+"/", func(driver.ObjectInfo) error { return nil }); errors.Is(err, objstore.ErrNoBucket) || errors.Is(err, objstore.ErrUnreachable) {
		rep.Elapsed = time.Since(rep.Started)
		return rep, fmt.Errorf("bench: %w", err)
	}

	cases := []struct {
		c   Case
		run func(context.Context) []Row
	}{
		{CasePut, r.putCase},
		{CaseCommit, r.commitCase},
		{CaseGet, r.getCase},
		{CaseLease, r.leaseCase},
		{CaseDomains, r.domainsCase},
		{CaseWriters, r.writersCase},
		{CaseLiveKeys, r.liveKeysCase},
		{CaseJob, r.jobCase},
		{CaseProcess, r.processCase},
		{CaseMemory, r.memoryCase},
		{CaseReceipts, r.receiptsCase},
		{CaseGateway, r.gatewayCase},
	}
	for _, c := range cases {
		if !cfg.has(c.c) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		rows := c.run(ctx)
		for i := range rows {
			rows[i].Case = c.c
			judge(&rows[i])
			fmt.Fprintf(out, "bench: %s\n", progressLine(rows[i]))
		}
		rep.Rows = append(rep.Rows, rows...)
	}

	rep.Cleanup = r.cleanup(ctx)
	var errs []error
	if err := ctx.Err(); err != nil {
		errs = append(errs, fmt.Errorf("bench: stopped: %w", err))
	}
	for _, row := range rep.Failed() {
		errs = append(errs, fmt.Errorf("bench: %s: %s", row.Name, row.Error))
	}
	if rep.Cleanup.Error != "" {
		errs = append(errs, fmt.Errorf("bench: cleanup: %s", rep.Cleanup.Error))
	}
	rep.Elapsed = time.Since(rep.Started)
	return rep, errors.Join(errs...)
}

// runner holds one run's state.
type runner struct {
	cfg     Config
	out     io.Writer
	store   *objstore.Store
	plain   plain
	coord   *coord.Coordinator
	scratch string // "<Prefix>/<random>", no trailing slash
	so      objstore.Options
	par     int // upload parallelism
	now     func() time.Time
	// costs makes interleaveSides read the client's CPU and allocations
	// around each timed call.
	costs bool
	// extra lists backends other than cfg.Backend that the run wrote to
	// (a bucket-lease coordinator's own backend).
	extra []driver.Backend
	// dynamoItems lists scratch DynamoDB items to delete.
	dynamoItems []string
}

func newRunner(cfg Config, out io.Writer) *runner {
	var so objstore.Options
	if cfg.StoreOptions != nil {
		so = *cfg.StoreOptions
	}
	if so.UploadParallelism <= 0 {
		so.UploadParallelism = 16 // objstore's default
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	r := &runner{
		cfg: cfg,
		out: out,
		// The store is never closed: Store.Close would close the
		// caller's backend.
		store:   objstore.New(cfg.Backend, &so),
		plain:   plainFor(cfg.Backend),
		coord:   cfg.Coordinator,
		scratch: cfg.Prefix + "/" + hex.EncodeToString(rnd[:]),
		so:      so,
		par:     so.UploadParallelism,
		now:     time.Now,
		costs:   true,
	}
	if r.coord == nil {
		r.coord = coord.New(bucketlease.New(cfg.Backend, nil))
	}
	if bl, ok := r.coord.Driver().(*bucketlease.Driver); ok && bl.Backend() != cfg.Backend {
		r.extra = append(r.extra, bl.Backend())
	}
	return r
}

// storeOptions returns a copy of the fenced Store's options.
func (r *runner) storeOptions() *objstore.Options {
	so := r.so
	return &so
}

// domain returns a scratch domain name.
func (r *runner) domain(parts ...string) string {
	d := r.scratch
	for _, p := range parts {
		d += "/" + p
	}
	return d
}

// plainKey returns a scratch key for plain objects.
func (r *runner) plainKey(parts ...string) string {
	return r.domain(append([]string{"plain"}, parts...)...)
}

func (r *runner) settings() Settings {
	c := r.cfg
	return Settings{
		Cases:             c.Cases,
		Iterations:        c.Iterations,
		ByteBudget:        c.ByteBudget,
		PutSizes:          c.PutSizes,
		GetSizes:          c.GetSizes,
		CommitKeys:        c.CommitKeys,
		CommitKeySize:     c.CommitKeySize,
		CommitIterations:  c.CommitIterations,
		UploadParallelism: r.par,
		Domains:           c.Domains,
		ThroughputTime:    c.ThroughputTime,
		ThroughputRounds:  c.ThroughputRounds,
		LiveKeys:          c.LiveKeys,
		MemorySize:        c.MemorySize,
		ProcessIterations: c.ProcessIterations,

		GatewayMultipartSize:   c.GatewayMultipartSize,
		GatewayPartSize:        c.GatewayPartSize,
		GatewayPartConcurrency: c.GatewayPartConcurrency,
	}
}

// interleave runs every side n times, timing each call, after one untimed
// warm-up call of each. Iteration i starts with side i mod len(sides),
// so that no side always goes first. It returns the latencies by side,
// and stops at the first error.
func (r *runner) interleave(ctx context.Context, n int, ops ...func(ctx context.Context, i int) error) ([][]time.Duration, error) {
	sides := make([]side, len(ops))
	for i, op := range ops {
		sides[i] = side{op: op}
	}
	res, err := r.interleaveSides(ctx, n, sides...)
	lat := make([][]time.Duration, len(res))
	for i := range res {
		lat[i] = res[i].lat
	}
	return lat, err
}

// side is one side of an interleaved row.
type side struct {
	// prep, if set, runs untimed before each call of op: it re-reads what
	// a floor's calls send, or deletes what the last call wrote.
	prep func(ctx context.Context, i int) error
	op   func(ctx context.Context, i int) error
}

// sideResult is what interleaveSides measured of one side.
type sideResult struct {
	lat []time.Duration
	// cost is the sum over the timed calls (zero unless r.costs).
	cost cost
}

// stats summarizes the side, with its cost per operation.
func (s sideResult) stats() Stats {
	st := summarize(s.lat)
	s.cost.perOp(&st)
	return st
}

// order is the order in which one iteration of an interleaved row runs
// its sides (or steps). Iteration i starts with side i mod n, so that each
// goes first equally often; the others follow in an order shuffled by a
// generator of fixed seed, so that no side always runs right after the
// same one (a DynamoDB call right after a MinIO PUT costs more than one
// after another DynamoDB call on a shared machine). With two sides this
// is plain alternation. The warm-up (i < 0) runs them in their order:
// the first ones create what later ones read.
type order struct {
	rng *mrand.Rand
	buf []int
	n   int
}

func newOrder(n int) *order {
	return &order{rng: mrand.New(mrand.NewPCG(1, uint64(n))), buf: make([]int, 0, n), n: n}
}

// next returns iteration i's order; it is valid until the next call.
func (o *order) next(i int) []int {
	first := max(i, 0) % o.n
	o.buf = append(o.buf[:0], first)
	for s := range o.n {
		if s != first {
			o.buf = append(o.buf, s)
		}
	}
	if i >= 0 {
		rest := o.buf[1:]
		o.rng.Shuffle(len(rest), func(a, b int) { rest[a], rest[b] = rest[b], rest[a] })
	}
	return o.buf
}

// interleaveSides is interleave with untimed preparation, and, when
// r.costs is set, the client's CPU and allocations read around each
// timed call, outside the timed interval.
func (r *runner) interleaveSides(ctx context.Context, n int, sides ...side) ([]sideResult, error) {
	res := make([]sideResult, len(sides))
	for s := range sides {
		res[s].lat = make([]time.Duration, 0, n)
	}
	o := newOrder(len(sides))
	for i := -1; i < n; i++ {
		for _, s := range o.next(i) {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if p := sides[s].prep; p != nil {
				if err := p(ctx, i); err != nil {
					return res, err
				}
			}
			var c0 cost
			if r.costs {
				c0 = readCost()
			}
			start := r.now()
			err := sides[s].op(ctx, i)
			d := r.now().Sub(start)
			if err != nil {
				return res, err
			}
			if i >= 0 {
				res[s].lat = append(res[s].lat, d)
				if r.costs {
					res[s].cost = res[s].cost.add(readCost().sub(c0))
				}
			}
		}
	}
	return res, nil
}

// progressLine summarizes a finished row in one line.
func progressLine(row Row) string {
	switch {
	case row.Error != "":
		return fmt.Sprintf("%s: error: %s", row.Name, row.Error)
	case row.Fenced.N == 0:
		return fmt.Sprintf("%s: skipped: %s", row.Name, row.Skipped)
	case row.Metric == metricRSS && row.Bound > 0:
		return fmt.Sprintf("%s: fenced peak RSS %s, bound %s, %.2fx the bound", row.Name, formatBytes(row.Fenced.PeakRSS), formatBytes(row.Bound), row.Ratio)
	case row.Metric == metricRSS && row.Plain.N == 0:
		return fmt.Sprintf("%s: fenced peak RSS %s, in %s", row.Name, formatBytes(row.Fenced.PeakRSS), formatDur(row.Fenced.P50))
	case row.Metric == metricRSS:
		return fmt.Sprintf("%s: fenced peak RSS %s, plain %s", row.Name, formatBytes(row.Fenced.PeakRSS), formatBytes(row.Plain.PeakRSS))
	}
	s := fmt.Sprintf("%s: fenced p50 %s (%s ops/s)", row.Name, formatDur(row.Fenced.P50), formatOps(row.Fenced.OpsPerSec))
	if row.Plain.N > 0 {
		s += fmt.Sprintf(", plain p50 %s (%s ops/s), ratio %.2fx", formatDur(row.Plain.P50), formatOps(row.Plain.OpsPerSec), row.Ratio)
	}
	if row.Floor.N > 0 {
		s += fmt.Sprintf(", floor p50 %s, %.2fx the floor", formatDur(row.Floor.P50), row.FloorRatio)
	}
	return s
}

// errRows returns rows, each marked as failed with err.
func errRows(err error, rows ...Row) []Row {
	for i := range rows {
		rows[i].Error = err.Error()
	}
	return slices.Clone(rows)
}
