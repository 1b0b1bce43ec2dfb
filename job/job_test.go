package job_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/job"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// setup returns a store and a coordinator sharing one in-memory bucket.
func setup(t *testing.T, wrap func(coord.Driver) coord.Driver) (*objstore.Store, *coord.Coordinator) {
	t.Helper()
	mem := memstore.New()
	var d coord.Driver = bucketlease.New(mem, nil)
	if wrap != nil {
		d = wrap(d)
	}
	return objstore.New(mem, nil), coord.New(d)
}

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

func readPID(t *testing.T, name string) int {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// gone reports whether no process of group pgid is left.
func gone(pgid int) bool { return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) }

// The command sees its lease in the environment; when it exits 0, the
// directory is published as one commit and the lease is released.
func TestPublishesOnSuccess(t *testing.T) {
	ctx := t.Context()
	store, c := setup(t, nil)
	dir := t.TempDir()
	script := `mkdir -p "$OUT/sub" && echo "$FENCE_DOMAIN $FENCE_TOKEN $FENCE_HOLDER" > "$OUT/env.txt" && echo b > "$OUT/sub/b.csv"`
	res, err := job.Run(ctx, store, c, "reports", sh(script), &job.Options{
		Holder: "cron", TTL: 10 * time.Second, Env: []string{"OUT=" + dir},
		Publish: &job.Publish{Dir: dir, Prefix: "daily"},
	})
	if err != nil || res.ExitCode != 0 || res.Published == nil {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	got, _, err := store.ReadAll(ctx, "reports", "daily/env.txt")
	want := "reports " + strconv.FormatUint(res.Lease.Token, 10) + " cron\n"
	if err != nil || string(got) != want {
		t.Fatalf("env.txt = %q, %v; want %q", got, err, want)
	}
	if _, _, err := store.ReadAll(ctx, "reports", "daily/sub/b.csv"); err != nil {
		t.Fatal(err)
	}
	if res.Published.Token != res.Lease.Token || len(res.Published.Versions) != 2 {
		t.Fatalf("published %+v", res.Published)
	}
	if st, err := c.State(ctx, "reports"); err != nil || st.Holder != "" {
		t.Fatalf("after Run the lease is %+v, %v; want released", st, err)
	}
}

// A command that fails publishes nothing; its exit code is reported.
func TestFailurePublishesNothing(t *testing.T) {
	ctx := t.Context()
	store, c := setup(t, nil)
	dir := t.TempDir()
	res, err := job.Run(ctx, store, c, "d", sh(`echo half > "$OUT/x"; exit 3`), &job.Options{
		TTL: 10 * time.Second, Env: []string{"OUT=" + dir}, Publish: &job.Publish{Dir: dir},
	})
	if err != nil || res.ExitCode != 3 || res.Published != nil {
		t.Fatalf("Run = %+v, %v; want exit 3, nothing published", res, err)
	}
	if _, _, err := store.ReadAll(ctx, "d", "x"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("x: %v; want not found", err)
	}
}

// unreachable is a driver whose renewals fail from some point on, as a
// coordinator that stopped answering.
type unreachable struct {
	coord.Driver
	down chan struct{}
}

func (u *unreachable) Renew(ctx context.Context, l coord.Lease, ttl time.Duration) (coord.Lease, error) {
	select {
	case <-u.down:
		return coord.Lease{}, errors.New("dial tcp: connection refused")
	default:
		return u.Driver.Renew(ctx, l, ttl)
	}
}

// When the lease can no longer be proven live, the whole process group
// is stopped (SIGKILL after the grace period for what ignores SIGTERM),
// Run reports the loss, and nothing is published.
func TestLeaseLostStopsTheGroup(t *testing.T) {
	ctx := t.Context()
	u := &unreachable{down: make(chan struct{})}
	store, c := setup(t, func(d coord.Driver) coord.Driver { u.Driver = d; return u })
	dir, out := t.TempDir(), t.TempDir()
	// The leader waits; a child in its group ignores SIGTERM.
	script := `echo $$ > "$PIDS/leader"; (trap '' TERM; while :; do sleep 0.05; done) & echo $! > "$PIDS/child"; touch "$OUT/partial"; wait`
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(dir, "child")); err == nil {
				close(u.down)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	start := time.Now()
	res, err := job.Run(ctx, store, c, "d", sh(script), &job.Options{
		TTL: 600 * time.Millisecond, Grace: 200 * time.Millisecond,
		Env:     []string{"PIDS=" + dir, "OUT=" + out},
		Publish: &job.Publish{Dir: out},
	})
	var le *job.LostError
	if !errors.As(err, &le) || !errors.Is(err, coord.ErrLeaseLost) || res.Published != nil {
		t.Fatalf("Run = %+v, %v; want a *LostError matching ErrLeaseLost, nothing published", res, err)
	}
	if le.Cause != job.Expired || !strings.Contains(err.Error(), "lease expired (nobody has taken it since)") {
		t.Errorf("error %q (cause %d); want the lease expired", err, le.Cause)
	}
	if res.ExitCode != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d; want %d (SIGTERM)", res.ExitCode, 128+int(syscall.SIGTERM))
	}
	leader := readPID(t, filepath.Join(dir, "leader"))
	if !gone(leader) {
		t.Fatalf("process group %d still has processes after Run returned", leader)
	}
	if _, _, err := store.ReadAll(ctx, "d", "partial"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("partial: %v; want nothing published", err)
	}
	t.Logf("stopped %s after start", time.Since(start).Round(time.Millisecond))
}

// Processes the command leaves behind do not outlive the job.
func TestNothingOutlivesTheJob(t *testing.T) {
	store, c := setup(t, nil)
	dir := t.TempDir()
	res, err := job.Run(t.Context(), store, c, "d", sh(`sleep 60 & echo $$ > "$PIDS/leader"; exit 0`), &job.Options{
		TTL: 10 * time.Second, Grace: 200 * time.Millisecond, Env: []string{"PIDS=" + dir},
	})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if leader := readPID(t, filepath.Join(dir, "leader")); !gone(leader) {
		t.Fatalf("the command's background process outlived the job (group %d)", leader)
	}
}

// Signals are forwarded to the command, whose exit code is reported.
func TestSignalsAreForwarded(t *testing.T) {
	store, c := setup(t, nil)
	dir := t.TempDir()
	sigs := make(chan os.Signal, 1)
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
				sigs <- syscall.SIGINT
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	res, err := job.Run(t.Context(), store, c, "d", sh(`trap 'exit 7' INT; touch "$D/ready"; while :; do sleep 0.05; done`), &job.Options{
		TTL: 10 * time.Second, Env: []string{"D=" + dir}, Signals: sigs,
	})
	if err != nil || res.ExitCode != 7 {
		t.Fatalf("Run = %+v, %v; want the command's exit 7 after SIGINT", res, err)
	}
}

// A publish after a newer holder fenced the domain is rejected by the
// store and publishes nothing, although this job's lease is still live.
func TestFencedPublish(t *testing.T) {
	ctx := t.Context()
	store, c := setup(t, nil)
	out := t.TempDir()
	first, err := job.Run(ctx, store, c, "d", sh(`echo first > "$OUT/r.csv"`), &job.Options{
		TTL: 10 * time.Second, Env: []string{"OUT=" + out}, Publish: &job.Publish{Dir: out},
	})
	if err != nil {
		t.Fatalf("first job: %v", err)
	}
	// The second job's command prints a line once it has written its
	// report, and the domain is fenced above its token then, as a newer
	// holder would.
	_, err = job.Run(ctx, store, c, "d", sh(`echo late > "$OUT/r.csv"; echo written`), &job.Options{
		TTL: 10 * time.Second, Env: []string{"OUT=" + out}, Publish: &job.Publish{Dir: out},
		Stdout: onWrite(func() {
			if _, ferr := store.Fence(ctx, "d", first.Lease.Token+10); ferr != nil {
				t.Errorf("fence: %v", ferr)
			}
		}),
	})
	if !errors.Is(err, objstore.ErrFenced) {
		t.Fatalf("Run = %v; want ErrFenced", err)
	}
	got, _, _ := store.ReadAll(ctx, "d", "r.csv")
	if string(got) != "first\n" {
		t.Fatalf("r.csv = %q; want the first job's", got)
	}
}

// onWrite runs f at every write.
type onWrite func()

func (f onWrite) Write(p []byte) (int, error) { f(); return len(p), nil }

// A reader polling while a report set is published sees all of it or
// none of it, never part.
func TestPublishIsAtomic(t *testing.T) {
	ctx := t.Context()
	store, c := setup(t, nil)
	out := t.TempDir()
	const n = 40
	stop := make(chan struct{})
	seen := make(chan []int, 1)
	go func() {
		var sizes []int
		defer func() { seen <- sizes }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			vs, err := store.List(ctx, "d", &objstore.ListOptions{Prefix: "set/"})
			if err == nil {
				sizes = append(sizes, len(vs))
			}
		}
	}()
	script := `i=0; while [ $i -lt 40 ]; do echo "row $i" > "$OUT/part-$i.csv"; i=$((i+1)); done`
	res, err := job.Run(ctx, store, c, "d", sh(script), &job.Options{
		TTL: 10 * time.Second, Env: []string{"OUT=" + out}, Publish: &job.Publish{Dir: out, Prefix: "set"},
	})
	close(stop)
	sizes := <-seen
	if err != nil || len(res.Published.Versions) != n {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	for _, s := range sizes {
		if s != 0 && s != n {
			t.Fatalf("a reader saw %d of the %d keys of the set", s, n)
		}
	}
	t.Logf("%d reads during the publish", len(sizes))
}
