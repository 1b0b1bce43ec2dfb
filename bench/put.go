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
// PutObject of the same bytes, overwriting one key on each side, and
// against its floor: one conditional manifest write when the value is
// kept in the manifest; otherwise the version upload, then the manifest
// write.
func (r *runner) putCase(ctx context.Context) []Row {
	var rows []Row
	var data payloads
	for _, size := range r.cfg.PutSizes {
		id, name := "put/"+sizeID(size), "put "+sizeName(size)
		body := data.get(size)
		domain, pkey := r.domain("put", sizeID(size)), r.plainKey("put", sizeID(size))
		mf := r.manifestFloor(domain, "put", sizeID(size))
		inline := r.inlined(1, size)
		version := func(i int) string { return r.plainKey("floor", "put", sizeID(size), fmt.Sprintf("v%d", i+1)) }
		floor := side{
			prep: func(ctx context.Context, i int) error {
				if !inline {
					// Only the last version is kept, as the fenced
					// side's are collected after the row.
					if err := r.deleteScratch(ctx, version(i-1)); err != nil {
						return err
					}
				}
				return mf.refresh(ctx)
			},
			op: func(ctx context.Context, i int) error {
				if !inline {
					if err := r.create(ctx, version(i), body); err != nil {
						return err
					}
				}
				return mf.write(ctx)
			},
		}
		res, err := r.interleaveSides(ctx, r.cfg.iterations(size),
			side{op: func(ctx context.Context, _ int) error {
				_, err := r.store.Put(ctx, domain, "obj", token, bytes.NewReader(body), size)
				return err
			}},
			side{op: func(ctx context.Context, _ int) error { return r.plain.put(ctx, pkey, body) }},
			floor,
		)
		if err != nil {
			rows = append(rows, errRows(err, Row{ID: id, Name: name, Metric: metricP50})...)
			continue
		}
		fd := r.manifestWriteDesc() + " (" + mf.size() + " at the end)"
		if !inline {
			fd = r.createDesc(size) + ", then " + fd
		}
		rows = append(rows, latencyStatsRow(id, name, "one plain "+r.plain.putCall()+" of the same bytes", res[0].stats(), res[1].stats()).withFloor(fd, res[2].stats()))
		r.collect(ctx, domain)
	}
	return rows
}

// commitCase measures an atomic commit of CommitKeys keys against as many
// plain PUTs issued at the store's upload parallelism, and against its
// floor: one conditional manifest write when the values are kept in the
// manifest; otherwise as many version uploads at the store's upload
// parallelism, then the manifest write.
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
	mf := r.manifestFloor(domain, "commit")
	inline := r.inlined(n, size)
	uploads := func(ctx context.Context, key func(k string) string, put func(ctx context.Context, key string, data []byte) error) error {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(r.par)
		for _, k := range keys {
			g.Go(func() error { return put(gctx, key(k), body) })
		}
		return g.Wait()
	}
	res, err := r.interleaveSides(ctx, r.cfg.CommitIterations,
		side{op: func(ctx context.Context, _ int) error {
			changes := make([]objstore.Change, n)
			for i, k := range keys {
				changes[i] = objstore.PutBytes(k, body)
			}
			_, err := r.store.Commit(ctx, domain, token, changes, nil)
			return err
		}},
		side{op: func(ctx context.Context, _ int) error {
			return uploads(ctx, func(k string) string { return r.plainKey("commit", k) }, r.plain.put)
		}},
		side{prep: mf.prep, op: func(ctx context.Context, i int) error {
			if !inline {
				// New keys each time; cleanup deletes them.
				err := uploads(ctx, func(k string) string { return r.plainKey("floor", "commit", fmt.Sprint(i+1), k) }, r.create)
				if err != nil {
					return err
				}
			}
			return mf.write(ctx)
		}},
	)
	if err != nil {
		return errRows(err, Row{ID: id, Name: name, Metric: metricP50})
	}
	r.collect(ctx, domain)
	fd := r.manifestWriteDesc() + " (" + mf.size() + " at the end, the values inline)"
	if !inline {
		fd = fmt.Sprintf("%d version uploads of %s to new keys (If-None-Match: *), %d at a time, then %s (%s at the end)", n, sizeName(size), r.par, r.manifestWriteDesc(), mf.size())
	}
	row := latencyStatsRow(id, name, fmt.Sprintf("%d plain %ss, %d at a time (the store's upload parallelism)", n, r.plain.putCall(), r.par), res[0].stats(), res[1].stats())
	return []Row{row.withFloor(fd, res[2].stats())}
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
