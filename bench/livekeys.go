package bench

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/fencedstore/fence/objstore"
)

// fillBatch is the number of keys each commit adds while filling a
// live-keys domain.
const fillBatch = 1000

// liveKeysBaseline describes the reference of the live-keys rows.
func liveKeysBaseline(n int) string {
	return fmt.Sprintf("the same commit in a domain with %s live keys", countName(n))
}

// liveKeysCase measures a one-key commit into domains that hold each of
// LiveKeys live keys, interleaved. The smallest domain's row is compared
// with one plain PUT of the same bytes, the others with the smallest
// domain's commit: the ratio is what the domain's size costs.
func (r *runner) liveKeysCase(ctx context.Context) []Row {
	counts := slices.Clone(r.cfg.LiveKeys)
	slices.Sort(counts)
	counts = slices.Compact(counts)
	rows := make([]Row, len(counts))
	for i, n := range counts {
		rows[i] = Row{ID: fmt.Sprintf("livekeys/%d", n), Name: fmt.Sprintf("commit 1 x %s, %s live keys", sizeName(r.cfg.CommitKeySize), countName(n)), Metric: metricP50}
	}
	domains := make([]string, len(counts))
	for i, n := range counts {
		domains[i] = r.domain("livekeys", fmt.Sprint(n))
		fmt.Fprintf(r.out, "bench: filling %s with %s keys\n", domains[i], countName(n))
		if err := r.fill(ctx, domains[i], n); err != nil {
			return errRows(fmt.Errorf("filling %s: %w", domains[i], err), rows...)
		}
	}
	var data payloads
	size := r.cfg.CommitKeySize
	body := data.get(size)
	pkey := r.plainKey("livekeys")
	sides := []func(context.Context, int) error{
		func(ctx context.Context, _ int) error { return r.plain.put(ctx, pkey, body) },
	}
	for _, d := range domains {
		sides = append(sides, func(ctx context.Context, _ int) error {
			_, err := r.store.Put(ctx, d, "hot", token, bytes.NewReader(body), size)
			return err
		})
	}
	lat, err := r.interleave(ctx, r.cfg.CommitIterations, sides...)
	if err != nil {
		return errRows(err, rows...)
	}
	for i := range rows {
		base, baseLat := liveKeysBaseline(counts[0]), lat[1]
		if i == 0 {
			base, baseLat = "one plain "+r.plain.putCall()+" of the same bytes", lat[0]
		}
		rows[i] = latencyRow(rows[i].ID, rows[i].Name, base, lat[i+1], baseLat)
	}
	for _, d := range domains {
		r.collect(ctx, d)
	}
	return rows
}

// fill commits n small keys to domain, fillBatch per commit.
func (r *runner) fill(ctx context.Context, domain string, n int) error {
	start := r.now()
	for i := 0; i < n; i += fillBatch {
		var changes []objstore.Change
		for k := i; k < min(i+fillBatch, n); k++ {
			changes = append(changes, objstore.PutBytes(fmt.Sprintf("k%06d", k), []byte(fmt.Sprint(k))))
		}
		if _, err := r.store.Commit(ctx, domain, token, changes, nil); err != nil {
			return err
		}
	}
	fmt.Fprintf(r.out, "bench: filled %s in %s\n", domain, r.now().Sub(start).Round(time.Millisecond))
	return nil
}
