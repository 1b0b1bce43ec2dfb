package bench

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
)

// writersCase measures, for each of Config.Writers, the aggregate rate
// of one-key commits from that many goroutines of one Store at one token
// into ONE domain (each put a key of its own, as a pipeline stage writes
// its outputs), against the rate of plain PUTs from as many goroutines.
// The Store merges the commits that wait for the domain's manifest into
// shared writes (group commit, docs/design.md); without that, every
// commit would race its neighbours for the manifest. Fenced and plain
// phases alternate, ThroughputRounds of each.
func (r *runner) writersCase(ctx context.Context) []Row {
	var rows []Row
	var data payloads
	size := r.cfg.CommitKeySize
	body := data.get(size)
	for _, n := range r.cfg.Writers {
		id := fmt.Sprintf("writers/%d", n)
		name := fmt.Sprintf("1 domain, %d writers, 1 x %s commits", n, sizeName(size))
		domain := r.domain("writers", fmt.Sprint(n))
		var seq atomic.Int64
		fenced := func(ctx context.Context, w int) error {
			key := fmt.Sprintf("w%d/%d", w, seq.Add(1))
			_, err := r.store.Put(ctx, domain, key, token, bytes.NewReader(body), size)
			return err
		}
		plain := func(ctx context.Context, w int) error {
			return r.plain.put(ctx, r.plainKey("writers", fmt.Sprint(n), fmt.Sprintf("w%d/%d", w, seq.Add(1))), body)
		}
		rows = append(rows, r.throughput(ctx, id, name, fmt.Sprintf("plain %ss of %s from %d goroutines, a key each", r.plain.putCall(), sizeName(size), n), n, fenced, plain))
	}
	return rows
}
