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
		res, err := r.interleaveSides(ctx, r.cfg.iterations(size),
			side{op: func(ctx context.Context, _ int) error { return fencedGet(ctx, r.store, domain, size) }},
			side{op: plainGet},
		)
		if err != nil {
			rows = append(rows, errRows(err, Row{ID: id, Name: name, Metric: metricP50})...)
			continue
		}
		base := "one plain " + r.plain.getCall() + " of an object of the same size"
		// A warm read's floor is the object's GET: the manifest's
		// revalidation (answered 304) names the same immutable version
		// the cache holds, so it can overlap that GET.
		rows = append(rows, latencyStatsRow(id, name, base, res[0].stats(), res[1].stats()).
			withFloor("the plain side's call: one "+r.plain.getCall()+" of the object (the manifest's revalidation can overlap it)", res[1].stats()))
		if size > coldGetMax {
			continue
		}
		// A cold read's floor is the manifest's GET, then, unless the
		// value is in the manifest, the version's GET: its name is in the
		// manifest.
		id, name = id+"/cold", name+", new Store each time"
		mf := r.manifestFloor(domain, "get", sizeID(size))
		inline := r.inlined(1, size)
		res, err = r.interleaveSides(ctx, r.cfg.iterations(size),
			side{op: func(ctx context.Context, _ int) error {
				return fencedGet(ctx, objstore.New(r.cfg.Backend, r.storeOptions()), domain, size)
			}},
			side{op: plainGet},
			side{op: func(ctx context.Context, i int) error {
				if err := mf.get(ctx); err != nil || inline {
					return err
				}
				return plainGet(ctx, i)
			}},
		)
		if err != nil {
			rows = append(rows, errRows(err, Row{ID: id, Name: name, Metric: metricP50})...)
			continue
		}
		fd := "one plain " + r.plain.getCall() + " of the domain's manifest (the value inline)"
		if !inline {
			fd = "one plain " + r.plain.getCall() + " of the domain's manifest, then one of an object of the same size"
		}
		rows = append(rows, latencyStatsRow(id, name, base, res[0].stats(), res[1].stats()).withFloor(fd, res[2].stats()))
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
