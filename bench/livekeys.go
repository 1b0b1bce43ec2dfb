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
	sides := []side{
		{op: func(ctx context.Context, _ int) error { return r.plain.put(ctx, pkey, body) }},
	}
	for _, d := range domains {
		sides = append(sides, side{op: func(ctx context.Context, _ int) error {
			_, err := r.store.Put(ctx, d, "hot", token, bytes.NewReader(body), size)
			return err
		}})
	}
	// Each commit's floor: one conditional write of its domain's
	// manifest (the root manifest), after the version's upload unless
	// the value is inline.
	inline := r.inlined(1, size)
	floors := make([]*manifestFloor, len(domains))
	for i, d := range domains {
		floors[i] = r.manifestFloor(d, "livekeys", fmt.Sprint(counts[i]))
		sides = append(sides, side{prep: floors[i].prep, op: func(ctx context.Context, it int) error {
			if !inline {
				// New keys each time; cleanup deletes them.
				if err := r.create(ctx, r.plainKey("floor", "livekeys", fmt.Sprint(counts[i]), fmt.Sprintf("v%d", it+1)), body); err != nil {
					return err
				}
			}
			return floors[i].write(ctx)
		}})
	}
	res, err := r.interleaveSides(ctx, r.cfg.CommitIterations, sides...)
	if err != nil {
		return errRows(err, rows...)
	}
	for i := range rows {
		base, baseStats := liveKeysBaseline(counts[0]), res[1].stats()
		if i == 0 {
			base, baseStats = "one plain "+r.plain.putCall()+" of the same bytes", res[0].stats()
		}
		fd := r.manifestWriteDesc() + " (" + floors[i].size() + " at the end)"
		if !inline {
			fd = r.createDesc(size) + ", then " + fd
		}
		rows[i] = latencyStatsRow(rows[i].ID, rows[i].Name, base, res[i+1].stats(), baseStats).withFloor(fd, res[1+len(domains)+i].stats())
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
