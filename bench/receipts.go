package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/objstore"
)

// receiptsCase measures a commit that publishes staged values
// (objstore.Store.Stage, objstore.PutReceipt), as the committer of a job
// spread over many workers makes it. Two rows:
//
//   - one commit of Config.Receipts receipts against its floor,
//     interleaved: the checks the commit must make (one HEAD of each
//     receipt's version object, at the store's upload parallelism) and
//     one conditional write of the domain's manifest. The floor is also
//     the row's plain side, so the row's ratio is fenced over floor.
//     Each iteration publishes new receipts: a receipt is published once,
//     and a second commit of the same receipts would be a rewrite of what
//     is already live. They are staged before the iteration, untimed,
//     under the same keys, so the manifest keeps its size.
//   - one commit of Config.LargeReceipts receipts in a child process that
//     reads them from a JSON-lines file, as `fence commit --receipts`
//     does, and commits them: the commit's time and the child's peak
//     resident memory (VmHWM). It has no plain side and no target.
func (r *runner) receiptsCase(ctx context.Context) []Row {
	return []Row{r.receiptsRow(ctx), r.receiptsMemoryRow(ctx)}
}

// receiptKeys returns n keys, the same for every iteration.
func receiptKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("r%05d", i)
	}
	return keys
}

// stageAll stages body under each of keys in domain, at the store's
// upload parallelism, and returns the receipts in the order of keys.
func (r *runner) stageAll(ctx context.Context, domain string, keys []string, body []byte) ([]objstore.Receipt, error) {
	out := make([]objstore.Receipt, len(keys))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.par)
	for i, k := range keys {
		g.Go(func() error {
			rc, err := r.store.Stage(gctx, domain, k, token, bytes.NewReader(body), int64(len(body)))
			out[i] = rc
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("bench: stage %d values in %s: %w", len(keys), domain, err)
	}
	return out, nil
}

func (r *runner) receiptsRow(ctx context.Context) Row {
	n, size := r.cfg.Receipts, r.cfg.CommitKeySize
	id := fmt.Sprintf("receipts/%dx%s", n, sizeID(size))
	name := fmt.Sprintf("commit %s staged receipts of %s", countName(n), sizeName(size))
	var data payloads
	body := data.get(size)
	domain := r.domain("receipts", "commit")
	keys := receiptKeys(n)
	mf := r.manifestFloor(domain, "receipts")
	// next is what the fenced side publishes next; last is what it
	// staged last, whose version objects the floor HEADs.
	var next, last []objstore.Receipt
	fenced := side{
		prep: func(ctx context.Context, _ int) error {
			rcs, err := r.stageAll(ctx, domain, keys, body)
			next, last = rcs, rcs
			return err
		},
		op: func(ctx context.Context, _ int) error {
			changes := make([]objstore.Change, len(next))
			for i, rc := range next {
				changes[i] = objstore.PutReceipt(rc)
			}
			next = nil
			_, err := r.store.Commit(ctx, domain, token, changes, nil)
			return err
		},
	}
	floor := side{
		prep: mf.prep,
		op: func(ctx context.Context, _ int) error {
			g, gctx := errgroup.WithContext(ctx)
			g.SetLimit(r.par)
			for _, rc := range last {
				g.Go(func() error {
					got, err := head(gctx, r.plain, rc.Object)
					if err == nil && got != rc.Size {
						err = fmt.Errorf("bench: floor: %s has %d bytes, its receipt says %d", rc.Object, got, rc.Size)
					}
					return err
				})
			}
			if err := g.Wait(); err != nil {
				return err
			}
			return mf.write(ctx)
		},
	}
	res, err := r.interleaveSides(ctx, r.cfg.ReceiptIterations, fenced, floor)
	if err != nil {
		return errRows(err, Row{ID: id, Name: name, Metric: metricP50})[0]
	}
	r.collect(ctx, domain)
	fd := fmt.Sprintf("%s plain %ss of the receipts' version objects, %d at a time (the store's upload parallelism), then %s (%s at the end); the values staged before each iteration, untimed",
		countName(n), headCall(r.plain), r.par, r.manifestWriteDesc(), mf.size())
	row := latencyStatsRow(id, name, "its floor: "+fd, res[0].stats(), res[1].stats())
	return row.withFloor("the plain side's calls", res[1].stats())
}

func (r *runner) receiptsMemoryRow(ctx context.Context) Row {
	n, size := r.cfg.LargeReceipts, r.cfg.CommitKeySize
	row := Row{
		ID:       fmt.Sprintf("receipts/%dx%s/memory", n, sizeID(size)),
		Name:     fmt.Sprintf("commit %s staged receipts of %s, peak RSS", countName(n), sizeName(size)),
		Metric:   metricRSS,
		Baseline: fmt.Sprintf("none: a child process reads %s receipts from a JSON-lines file and commits them; the time is the commit's (it reads the manifest, checks each receipt with a HEAD, folds the entries into shards, writes the manifest), the peak RSS the child's; no target", countName(n)),
	}
	if runtime.GOOS != "linux" {
		row.Skipped = "peak RSS is read from /proc/self/status (VmHWM), which only Linux has"
		return row
	}
	bs, err := specFor(r.cfg.Backend)
	if err != nil {
		row.Skipped = fmt.Sprintf("%v; measure with a file, s3, minio, gs or azblob store", err)
		return row
	}
	domain := r.domain("receipts", "large")
	var data payloads
	fmt.Fprintf(r.out, "bench: staging %s values of %s in %s\n", countName(n), sizeName(size), domain)
	rcs, err := r.stageAll(ctx, domain, receiptKeys(n), data.get(size))
	if err != nil {
		return errRows(err, row)[0]
	}
	file, err := writeReceipts(rcs)
	if err != nil {
		return errRows(err, row)[0]
	}
	defer os.Remove(file)
	fmt.Fprintf(r.out, "bench: committing %s receipts in a child process\n", countName(n))
	res, err := r.child(ctx, childSpec{Op: childCommitReceipts, Fenced: true, Backend: bs, Domain: domain, File: file, UploadParallelism: r.par, SkipProbe: r.so.SkipProbe})
	if err != nil {
		return errRows(err, row)[0]
	}
	if res.Bytes != int64(n) {
		return errRows(fmt.Errorf("bench: the child published %d values, want %d", res.Bytes, n), row)[0]
	}
	row.Fenced = Stats{N: 1, P50: res.Elapsed, P90: res.Elapsed, P99: res.Elapsed, OpsPerSec: ratio(1, res.Elapsed.Seconds()), PeakRSS: res.PeakRSS}
	return row
}

// writeReceipts writes rcs to a new temporary file, one JSON line each,
// as `fence stage` prints them, and returns its path.
func writeReceipts(rcs []objstore.Receipt) (string, error) {
	f, err := os.CreateTemp("", "fence-bench-receipts-*.jsonl")
	if err != nil {
		return "", fmt.Errorf("bench: receipts file: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, rc := range rcs {
		if err = enc.Encode(rc); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("bench: receipts file: %w", err)
	}
	return f.Name(), nil
}
