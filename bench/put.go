package bench

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/objstore"
)

// putCase measures a one-key put of each of PutSizes against one plain
// PutObject of the same bytes, overwriting one key on each side.
func (r *runner) putCase(ctx context.Context) []Row {
	var rows []Row
	var data payloads
	for _, size := range r.cfg.PutSizes {
		id, name := "put/"+sizeID(size), "put "+sizeName(size)
		body := data.get(size)
		domain, pkey := r.domain("put", sizeID(size)), r.plainKey("put", sizeID(size))
		lat, err := r.interleave(ctx, r.cfg.iterations(size),
			func(ctx context.Context, _ int) error {
				_, err := r.store.Put(ctx, domain, "obj", token, bytes.NewReader(body), size)
				return err
			},
			func(ctx context.Context, _ int) error { return r.plain.put(ctx, pkey, body) },
		)
		if err != nil {
			rows = append(rows, errRows(err, Row{ID: id, Name: name, Metric: metricP50})...)
			continue
		}
		rows = append(rows, latencyRow(id, name, "one plain "+r.plain.putCall()+" of the same bytes", lat[0], lat[1]))
		r.collect(ctx, domain)
	}
	return rows
}

// commitCase measures an atomic commit of CommitKeys keys against as many
// plain PUTs issued at the store's upload parallelism.
func (r *runner) commitCase(ctx context.Context) []Row {
	n, size := r.cfg.CommitKeys, r.cfg.CommitKeySize
	id := fmt.Sprintf("commit/%dx%s", n, sizeID(size))
	name := fmt.Sprintf("commit %d x %s", n, sizeName(size))
	var data payloads
	body := data.get(size)
	domain := r.domain("commit")
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%05d", i)
	}
	lat, err := r.interleave(ctx, r.cfg.CommitIterations,
		func(ctx context.Context, _ int) error {
			changes := make([]objstore.Change, n)
			for i, k := range keys {
				changes[i] = objstore.PutBytes(k, body)
			}
			_, err := r.store.Commit(ctx, domain, token, changes, nil)
			return err
		},
		func(ctx context.Context, _ int) error {
			g, gctx := errgroup.WithContext(ctx)
			g.SetLimit(r.par)
			for _, k := range keys {
				g.Go(func() error { return r.plain.put(gctx, r.plainKey("commit", k), body) })
			}
			return g.Wait()
		},
	)
	if err != nil {
		return errRows(err, Row{ID: id, Name: name, Metric: metricP50})
	}
	r.collect(ctx, domain)
	return []Row{latencyRow(id, name, fmt.Sprintf("%d plain %ss, %d at a time (the store's upload parallelism)", n, r.plain.putCall(), r.par), lat[0], lat[1])}
}

// collect deletes the versions a row superseded, untimed, so that large
// rows do not fill the disk. Failing to is not the row's error: cleanup
// deletes everything anyway.
func (r *runner) collect(ctx context.Context, domain string) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := r.store.Collect(ctx, domain, 0); err != nil {
		fmt.Fprintf(r.out, "bench: collecting superseded versions of %s: %v\n", domain, err)
	}
}
