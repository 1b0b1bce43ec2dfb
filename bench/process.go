package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord/dynamocoord"
)

// processTimeout bounds each process of the process case.
const processTimeout = 2 * time.Minute

// processCase measures a whole `fence put` process of CommitKeySize
// bytes, as a cron job or a script runs it: start, open the store,
// prove it (or trust the probe's cached verdict), read the manifest,
// commit, exit. One row runs it as the CLI runs by default, with the
// probe's verdict cached across processes (each row's processes share a
// cache directory of their own, XDG_CACHE_HOME, so the run starts cold:
// the untimed warm-up process probes and fills it); the other with
// FENCE_PROBE_CACHE=off, so that every process probes.
//
// The plain side is a process of the same binary (a bench child) that
// opens the backend's SDK client and makes one plain put of the same
// bytes; the floor, one that makes the calls a new process cannot avoid:
// the manifest's GET (it has no cached ETag), then one conditional put of
// as many bytes. The lease is held by this process for the whole row, so
// the token never raises the domain and no process asks the coordinator.
func (r *runner) processCase(ctx context.Context) []Row {
	size := r.cfg.CommitKeySize
	id := "process/put/" + sizeID(size)
	rows := []Row{
		{ID: id, Name: fmt.Sprintf("fence put process, %s", sizeName(size)), Metric: metricP50},
		{ID: id + "/nocache", Name: fmt.Sprintf("fence put process, %s, FENCE_PROBE_CACHE=off", sizeName(size)), Metric: metricP50},
	}
	skip := func(why string) []Row {
		for i := range rows {
			rows[i].Skipped = why
		}
		return rows
	}
	switch {
	case r.cfg.CLI == "":
		return skip("no fence binary: Config.CLI is empty (fence bench passes its own executable, or --cli)")
	case r.cfg.StoreURL == "":
		return skip("no store URL for the fence processes: Config.StoreURL is empty")
	}
	bs, err := specFor(r.cfg.Backend)
	if err != nil {
		return skip(fmt.Sprintf("%v; measure with a file, s3, minio, gs or azblob store", err))
	}

	domain := r.domain("process")
	if _, ok := r.coord.Driver().(*dynamocoord.Driver); ok {
		r.dynamoItems = append(r.dynamoItems, domain)
	}
	sess, err := fence.Acquire(ctx, r.store, r.coord, domain, &fence.AcquireOptions{Holder: leaseHolder})
	if err != nil {
		return errRows(fmt.Errorf("fence.Acquire: %w", err), rows...)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = sess.Release(rctx)
	}()
	tmp, err := os.MkdirTemp("", "fence-bench-process-")
	if err != nil {
		return errRows(err, rows...)
	}
	defer os.RemoveAll(tmp)
	var data payloads
	file := filepath.Join(tmp, "body")
	if err := os.WriteFile(file, data.get(size), 0o600); err != nil {
		return errRows(err, rows...)
	}
	caches := map[string]string{}
	for _, name := range []string{"cached", "off", "plain", "floor"} {
		caches[name] = filepath.Join(tmp, "cache-"+name)
		if err := os.Mkdir(caches[name], 0o700); err != nil {
			return errRows(err, rows...)
		}
	}

	args := []string{"--store", r.cfg.StoreURL}
	if r.cfg.CoordURL != "" {
		args = append(args, "--coord", r.cfg.CoordURL)
	}
	args = append(args, "put", domain, "obj", file, "--token", strconv.FormatUint(sess.Lease().Token, 10))
	var cpu [4]time.Duration
	fencePut := func(k int, cache string, extra ...string) func(context.Context, int) error {
		return func(ctx context.Context, i int) error {
			ctx, cancel := context.WithTimeout(ctx, processTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, r.cfg.CLI, args...)
			cmd.Env = append(childEnviron(cache), extra...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.WaitDelay = 5 * time.Second
			t0 := time.Now()
			err := cmd.Run()
			if err != nil {
				return fmt.Errorf("bench: %s %s: %w: %s", r.cfg.CLI, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
			}
			if i < 0 && len(extra) == 0 {
				fmt.Fprintf(r.out, "bench: first fence put process, probe verdict not yet cached: %s\n", formatDur(time.Since(t0)))
			}
			if i >= 0 {
				cpu[k] += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			return nil
		}
	}
	child := func(k int, spec func() *childSpec, cache string) func(context.Context, int) error {
		return func(ctx context.Context, i int) error {
			ctx, cancel := context.WithTimeout(ctx, processTimeout)
			defer cancel()
			s := spec()
			res, c, err := runChildProcess(ctx, r.cfg.CLI, *s, childEnviron(cache))
			if err != nil {
				return err
			}
			s.ETag = res.ETag
			if i >= 0 {
				cpu[k] += c
			}
			return nil
		}
	}
	plainSpec := &childSpec{Op: childPlainPut, Backend: bs, Key: r.plainKey("process", "obj"), File: file}
	floorSpec := &childSpec{Op: childFloorPut, Backend: bs, Domain: domain, Key: r.plainKey("floor", "process", "manifest")}
	res, err := r.interleaveSides(ctx, r.cfg.ProcessIterations,
		side{op: fencePut(0, caches["cached"])},
		side{op: fencePut(1, caches["off"], "FENCE_PROBE_CACHE=off")},
		side{op: child(2, func() *childSpec { return plainSpec }, caches["plain"])},
		side{op: child(3, func() *childSpec { return floorSpec }, caches["floor"])},
	)
	if err != nil {
		return errRows(err, rows...)
	}
	st := make([]Stats, len(res))
	for k := range res {
		st[k] = summarize(res[k].lat)
		if st[k].N > 0 {
			st[k].CPU = cpu[k] / time.Duration(st[k].N)
		}
	}
	base := fmt.Sprintf("a process of the same binary that opens the backend's SDK client and makes one plain %s of the same bytes", r.plain.putCall())
	fd := fmt.Sprintf("a process of the same binary that makes one plain %s of the domain's manifest, then one conditional %s (%s) of as many bytes",
		r.plain.getCall(), r.plain.putCall(), r.plain.condition())
	for i := range rows {
		rows[i] = latencyStatsRow(rows[i].ID, rows[i].Name, base, st[i], st[2]).withFloor(fd, st[3])
	}
	return rows
}

// childEnviron is this process's environment for a child process of the
// process case: without FENCE_ variables (the row sets what it means to),
// with XDG_CACHE_HOME set to cache, where the probe's verdicts go.
func childEnviron(cache string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FENCE_") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "XDG_CACHE_HOME="+cache)
}
