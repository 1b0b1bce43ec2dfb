package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/fencedstore/fence/objstore"
)

// coldGetMax is the largest get size that also gets a cold row.
const coldGetMax = MiB

// getCase measures a read of each of GetSizes against one plain GetObject
// of an object of the same size. Objects up to coldGetMax also get a
// cold row: a new Store for every read, as a reader in a new process
// would have, so nothing is cached.
func (r *runner) getCase(ctx context.Context) []Row {
	var rows []Row
	var data payloads
	for _, size := range r.cfg.GetSizes {
		id, name := "get/"+sizeID(size), "get "+sizeName(size)
		body := data.get(size)
		domain, pkey := r.domain("get", sizeID(size)), r.plainKey("get", sizeID(size))
		if _, err := r.store.Put(ctx, domain, "obj", token, bytes.NewReader(body), size); err != nil {
			rows = append(rows, errRows(fmt.Errorf("writing the object to read: %w", err), Row{ID: id, Name: name, Metric: metricP50})...)
			continue
		}
		if err := r.plain.put(ctx, pkey, body); err != nil {
			rows = append(rows, errRows(fmt.Errorf("writing the object to read: %w", err), Row{ID: id, Name: name, Metric: metricP50})...)
			continue
		}
		plainGet := func(ctx context.Context, _ int) error {
			n, err := r.plain.get(ctx, pkey)
			if err == nil && n != size {
				err = fmt.Errorf("bench: plain get %s: %d bytes, want %d", pkey, n, size)
			}
			return err
		}
		lat, err := r.interleave(ctx, r.cfg.iterations(size),
			func(ctx context.Context, _ int) error { return fencedGet(ctx, r.store, domain, size) },
			plainGet,
		)
		if err != nil {
			rows = append(rows, errRows(err, Row{ID: id, Name: name, Metric: metricP50})...)
			continue
		}
		rows = append(rows, latencyRow(id, name, "one plain "+r.plain.getCall()+" of an object of the same size", lat[0], lat[1]))
		if size > coldGetMax {
			continue
		}
		id, name = id+"/cold", name+", new Store each time"
		lat, err = r.interleave(ctx, r.cfg.iterations(size),
			func(ctx context.Context, _ int) error {
				return fencedGet(ctx, objstore.New(r.cfg.Backend, r.storeOptions()), domain, size)
			},
			plainGet,
		)
		if err != nil {
			rows = append(rows, errRows(err, Row{ID: id, Name: name, Metric: metricP50})...)
			continue
		}
		rows = append(rows, latencyRow(id, name, "one plain "+r.plain.getCall()+" of an object of the same size", lat[0], lat[1]))
	}
	return rows
}

// fencedGet reads key "obj" of domain through s to the end, verified.
func fencedGet(ctx context.Context, s *objstore.Store, domain string, size int64) error {
	rd, err := s.Get(ctx, domain, "obj")
	if err != nil {
		return err
	}
	defer rd.Close()
	n, err := io.Copy(io.Discard, rd)
	if err == nil && n != size {
		err = fmt.Errorf("bench: get %s: %d bytes, want %d", domain, n, size)
	}
	return err
}
