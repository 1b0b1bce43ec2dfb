package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/s3gw"
	"github.com/fencedstore/fence/s3gw/wire"
)

// childGateway serves an S3 gateway (package s3gw, CommitAtEnd, plain
// HTTP on loopback) for Domain at token over the reopened backend, as
// fence exec --s3 serves it to its job: the gateway case's fenced side.
// It prints one line, a childResult with URL and StartRSS (its resident
// memory once serving, before any request), then serves until its
// standard input ends; then it reads its peak resident memory, publishes
// what the gateway staged in one commit (timed: Elapsed; Bytes is the
// number of values published), closes the gateway and prints its
// result.
const childGateway = "gateway"

// gatewaySpec is what a gateway child needs beyond the store: what its
// clients address, and the only credentials it accepts (made at random
// for the run, as fence exec makes them).
type gatewaySpec struct {
	Bucket    string `json:"bucket"`
	KeyPrefix string `json:"key_prefix"`
	AccessKey string `json:"access_key"`
	Secret    string `json:"secret"`
}

// markServing, a line on a gateway child's standard input, asks for its
// resident memory now, after a garbage collection that returns what is
// free to the system (childResult.ServingRSS, on a line of its own): its
// memory once it has served requests of each kind, code and all, which
// its memory at the start does not hold.
const markServing = "serving"

// runGatewayChild is the childGateway child; ready receives its first
// line, and its answers to markServing.
func runGatewayChild(ctx context.Context, spec childSpec, b driver.Backend, ready io.Writer, stdin io.Reader) (childResult, error) {
	if spec.Gateway == nil {
		return childResult{}, errors.New("bench: child: gateway: no gateway in the spec")
	}
	g := spec.Gateway
	store := objstore.New(b, &objstore.Options{UploadParallelism: spec.UploadParallelism, SkipProbe: spec.SkipProbe, PartBufferBytes: spec.PartBufferBytes,
		InlineMax: spec.InlineMax, InlineBudget: spec.InlineBudget})
	gw, err := s3gw.New(s3gw.Options{
		Store: store, Domain: spec.Domain, Token: token, Holder: leaseHolder,
		Bucket: g.Bucket, KeyPrefix: g.KeyPrefix, Commit: s3gw.CommitAtEnd,
		Credentials: wire.StaticCredentials{g.AccessKey: g.Secret},
	})
	if err != nil {
		return childResult{}, err
	}
	ep, err := s3gw.Serve(gw, s3gw.ServeOptions{})
	if err != nil {
		return childResult{}, err
	}
	defer ep.Shutdown(context.WithoutCancel(ctx))
	start := childResult{URL: ep.URL}
	if runtime.GOOS == "linux" {
		if start.StartRSS, err = residentRSS(); err != nil {
			return childResult{}, err
		}
	}
	line, _ := json.Marshal(start)
	if _, err := fmt.Fprintf(ready, "%s\n", line); err != nil {
		return childResult{}, fmt.Errorf("bench: child: gateway: %w", err)
	}
	served := time.Now()
	in := bufio.NewScanner(stdin)
	for in.Scan() {
		if in.Text() != markServing {
			return childResult{}, fmt.Errorf("bench: child: gateway: unknown request %q on standard input", in.Text())
		}
		var mark childResult
		if runtime.GOOS == "linux" {
			runtime.GC()
			debug.FreeOSMemory()
			if mark.ServingRSS, err = residentRSS(); err != nil {
				return childResult{}, err
			}
		}
		line, _ := json.Marshal(mark)
		if _, err := fmt.Fprintf(ready, "%s\n", line); err != nil {
			return childResult{}, fmt.Errorf("bench: child: gateway: %w", err)
		}
	}
	if err := in.Err(); err != nil {
		return childResult{}, fmt.Errorf("bench: child: gateway: reading standard input: %w", err)
	}
	res := childResult{Served: time.Since(served)}
	if runtime.GOOS == "linux" {
		if res.PeakRSS, err = peakRSS(); err != nil {
			return res, err
		}
	}
	t0 := time.Now()
	changes, _, err := gw.Changes(ctx, store, spec.Domain)
	if err == nil {
		_, err = store.Commit(ctx, spec.Domain, token, changes, &objstore.CommitOptions{Holder: leaseHolder})
	}
	res.Elapsed, res.Bytes = time.Since(t0), int64(len(changes))
	if cerr := gw.Close(ctx, err == nil); cerr != nil {
		err = errors.Join(err, cerr)
	}
	return res, err
}

// gatewayChild is a running gateway child, seen from the run.
type gatewayChild struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr bytes.Buffer
	start  childResult // its first line
}

// gatewayReadyTimeout bounds the wait for a gateway child's first line.
const gatewayReadyTimeout = 2 * time.Minute

// startGateway starts a gateway child with spec: this process's own
// executable, as the memory case's children. It returns once the child
// serves. ctx ends the child.
func startGateway(ctx context.Context, spec childSpec) (*gatewayChild, error) {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	c := &gatewayChild{cmd: exec.CommandContext(ctx, exe)}
	c.cmd.Env = append(os.Environ(), childEnv+"="+string(js))
	c.cmd.Stderr = &c.stderr
	c.cmd.WaitDelay = 5 * time.Second
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.stdout = bufio.NewReader(out)
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start the gateway child: %w", err)
	}
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		s, err := c.stdout.ReadString('\n')
		got <- line{s, err}
	}()
	timer := time.NewTimer(gatewayReadyTimeout)
	defer timer.Stop()
	var l line
	select {
	case l = <-got:
	case <-timer.C:
		l.err = fmt.Errorf("no endpoint after %s", gatewayReadyTimeout)
	case <-ctx.Done():
		l.err = ctx.Err()
	}
	if l.err == nil {
		l.err = json.Unmarshal([]byte(l.s), &c.start)
	}
	if l.err == nil && c.start.Error != "" {
		l.err = errors.New(c.start.Error)
	}
	if l.err == nil && c.start.URL == "" {
		l.err = fmt.Errorf("its first line has no endpoint: %s", strings.TrimSpace(l.s))
	}
	if l.err != nil {
		c.stdin.Close()
		c.cmd.Process.Kill()
		c.cmd.Wait()
		return nil, fmt.Errorf("bench: gateway child: %v; stderr: %s", l.err, strings.TrimSpace(c.stderr.String()))
	}
	return c, nil
}

// servingRSS asks the child for its resident memory once serving
// (markServing).
func (c *gatewayChild) servingRSS() (int64, error) {
	if _, err := fmt.Fprintln(c.stdin, markServing); err != nil {
		return 0, fmt.Errorf("bench: gateway child: %w", err)
	}
	s, err := c.stdout.ReadString('\n')
	var res childResult
	if err == nil {
		err = json.Unmarshal([]byte(s), &res)
	}
	if err != nil {
		return 0, fmt.Errorf("bench: gateway child: its resident memory: %v; stderr: %s", err, strings.TrimSpace(c.stderr.String()))
	}
	return res.ServingRSS, nil
}

// finish ends the child's serving (its standard input ends), waits for
// it to commit and exit, and returns its result.
func (c *gatewayChild) finish() (childResult, error) {
	c.stdin.Close()
	rest, rerr := io.ReadAll(c.stdout)
	werr := c.cmd.Wait()
	var res childResult
	lines := strings.Split(strings.TrimSpace(string(rest)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		return res, fmt.Errorf("bench: gateway child: %v; stderr: %s", firstErr(werr, rerr, err), strings.TrimSpace(c.stderr.String()))
	}
	if res.Error != "" {
		return res, fmt.Errorf("bench: gateway child: %s", res.Error)
	}
	if werr != nil {
		return res, fmt.Errorf("bench: gateway child: %w", werr)
	}
	return res, nil
}
