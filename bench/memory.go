package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// memoryCase measures the peak resident memory (VmHWM) of a put and a
// get of MemorySize bytes, each in a child process of its own so that
// nothing else this run holds counts. The body is streamed from a
// generator, never held whole. The plain side is the backend's own
// unconditional Put and plain Get, in a child of its own too.
func (r *runner) memoryCase(ctx context.Context) []Row {
	size := r.cfg.MemorySize
	put := Row{ID: "memory/put/" + sizeID(size), Name: "put " + sizeName(size) + ", peak RSS", Metric: metricRSS}
	get := Row{ID: "memory/get/" + sizeID(size), Name: "get " + sizeName(size) + ", peak RSS", Metric: metricRSS}
	if runtime.GOOS != "linux" {
		put.Skipped = "peak RSS is read from /proc/self/status (VmHWM), which only Linux has"
		get.Skipped = put.Skipped
		return []Row{put, get}
	}
	bs, err := specFor(r.cfg.Backend)
	if err != nil {
		put.Skipped = fmt.Sprintf("%v; measure with a file, s3, minio, gs or azblob store", err)
		get.Skipped = put.Skipped
		return []Row{put, get}
	}
	domain, pkey := r.domain("memory"), r.plainKey("memory", "obj")
	spec := func(op string, fenced bool) childSpec {
		s := childSpec{Op: op, Fenced: fenced, Backend: bs, Key: pkey, Size: size, UploadParallelism: r.par, SkipProbe: r.so.SkipProbe}
		if fenced {
			s.Domain, s.Key = domain, "obj"
		}
		return s
	}
	// Each get reads what the put before it wrote.
	var res [4]childResult
	for i, s := range []childSpec{spec(childPut, true), spec(childGet, true), spec(childPut, false), spec(childGet, false)} {
		side := "plain"
		if s.Fenced {
			side = "fenced"
		}
		fmt.Fprintf(r.out, "bench: %s %s of %s in a child process\n", side, s.Op, sizeName(size))
		if res[i], err = r.child(ctx, s); err != nil {
			put.Error, get.Error = err.Error(), err.Error()
			return []Row{put, get}
		}
	}
	stats := func(c childResult) Stats {
		return Stats{N: 1, P50: c.Elapsed, P90: c.Elapsed, P99: c.Elapsed, OpsPerSec: ratio(1, c.Elapsed.Seconds()), PeakRSS: c.PeakRSS}
	}
	return []Row{
		memoryRow(put.ID, put.Name, "the backend's own unconditional Put of the same stream, in a child process", stats(res[0]), stats(res[2])),
		memoryRow(get.ID, get.Name, "the backend's own Get, read to the end, in a child process", stats(res[1]), stats(res[3])),
	}
}

// child runs one memory child: this process's own executable, with the
// spec in its environment.
func (r *runner) child(ctx context.Context, spec childSpec) (childResult, error) {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.MemoryTimeout)
	defer cancel()
	res, _, err := runChildProcess(ctx, exe, spec, os.Environ())
	return res, err
}

// runChildProcess runs exe as a bench child with spec, in environment
// env, and returns its result and the CPU time (user and system) it used.
func runChildProcess(ctx context.Context, exe string, spec childSpec, env []string) (childResult, time.Duration, error) {
	js, err := json.Marshal(spec)
	if err != nil {
		return childResult{}, 0, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(env, childEnv+"="+string(js))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var res childResult
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if jerr := json.Unmarshal([]byte(lines[len(lines)-1]), &res); jerr != nil {
		return res, cpu, fmt.Errorf("bench: child %s: %v; stderr: %s", spec.Op, firstErr(runErr, jerr), strings.TrimSpace(stderr.String()))
	}
	if res.Error != "" {
		return res, cpu, fmt.Errorf("bench: child %s: %s", spec.Op, res.Error)
	}
	if runErr != nil {
		return res, cpu, fmt.Errorf("bench: child %s: %w", spec.Op, runErr)
	}
	return res, cpu, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
