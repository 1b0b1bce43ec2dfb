package bench

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// domainsCase measures, for each of Domains, the aggregate rate of
// one-key commits from that many workers, each committing to a domain of
// its own, against the rate of plain PUTs from as many workers. Fenced
// and plain phases alternate, ThroughputRounds of each.
func (r *runner) domainsCase(ctx context.Context) []Row {
	var rows []Row
	var data payloads
	size := r.cfg.CommitKeySize
	body := data.get(size)
	for _, n := range r.cfg.Domains {
		id := fmt.Sprintf("domains/%d", n)
		name := fmt.Sprintf("%d domains, 1 x %s commits", n, sizeName(size))
		if n == 1 {
			name = fmt.Sprintf("1 domain, 1 x %s commits", sizeName(size))
		}
		domains := make([]string, n)
		for i := range domains {
			domains[i] = r.domain("domains", fmt.Sprint(n), fmt.Sprint(i))
		}
		fenced := func(ctx context.Context, w int) error {
			_, err := r.store.Put(ctx, domains[w], "obj", token, bytes.NewReader(body), size)
			return err
		}
		plain := func(ctx context.Context, w int) error {
			return r.plain.put(ctx, r.plainKey("domains", fmt.Sprint(n), fmt.Sprint(w)), body)
		}
		workers := fmt.Sprintf("%d workers", n)
		if n == 1 {
			workers = "1 worker"
		}
		rows = append(rows, r.throughput(ctx, id, name, fmt.Sprintf("plain %ss of %s from %s, one key each", r.plain.putCall(), sizeName(size), workers), n, fenced, plain))
	}
	return rows
}

// throughput measures one throughput row: an untimed warm-up of fenced
// from n workers (it creates the manifests and opens connections), then
// alternating phases of fenced and plain (alternate).
func (r *runner) throughput(ctx context.Context, id, name, baseline string, n int, fenced, plain func(context.Context, int) error) Row {
	if _, err := r.phase(ctx, n, 0, fenced); err != nil {
		return errRows(err, Row{ID: id, Name: name, Metric: metricThroughput})[0]
	}
	f, p, err := r.alternate(ctx, n, fenced, plain)
	if err != nil {
		return errRows(err, Row{ID: id, Name: name, Metric: metricThroughput})[0]
	}
	return throughputRow(id, name, baseline, summarizeOver(f.lat, f.wall), summarizeOver(p.lat, p.wall))
}

// alternate runs ThroughputRounds phases of fenced and of plain from n
// workers each, taken alternately, and returns what each side measured.
func (r *runner) alternate(ctx context.Context, n int, fenced, plain func(context.Context, int) error) (f, p phaseResult, err error) {
	for round := 0; round < r.cfg.ThroughputRounds; round++ {
		sides := []struct {
			op  func(context.Context, int) error
			acc *phaseResult
		}{{fenced, &f}, {plain, &p}}
		for k := range sides {
			s := sides[(round+k)%2]
			res, err := r.phase(ctx, n, r.cfg.ThroughputTime, s.op)
			if err != nil {
				return f, p, err
			}
			s.acc.add(res)
		}
	}
	return f, p, nil
}

// phaseResult is what one or more throughput phases measured.
type phaseResult struct {
	lat  []time.Duration
	wall time.Duration
}

func (p *phaseResult) add(q phaseResult) {
	p.lat = append(p.lat, q.lat...)
	p.wall += q.wall
}

// phase runs op from n workers (op's second argument is the worker's
// index) until d has passed, each worker at least once, and returns every
// call's latency and the phase's wall time.
func (r *runner) phase(ctx context.Context, n int, d time.Duration, op func(context.Context, int) error) (phaseResult, error) {
	var mu sync.Mutex
	var res phaseResult
	g, gctx := errgroup.WithContext(ctx)
	start := r.now()
	end := start.Add(d)
	for w := range n {
		g.Go(func() error {
			var lat []time.Duration
			defer func() {
				mu.Lock()
				res.lat = append(res.lat, lat...)
				mu.Unlock()
			}()
			for {
				t0 := r.now()
				if err := op(gctx, w); err != nil {
					return err
				}
				t1 := r.now()
				lat = append(lat, t1.Sub(t0))
				if !t1.Before(end) {
					return nil
				}
			}
		})
	}
	err := g.Wait()
	res.wall = r.now().Sub(start)
	return res, err
}
