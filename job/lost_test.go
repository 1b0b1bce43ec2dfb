package job_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/job"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

// runUntil runs a command that loops until it is stopped, under a lease
// of an hour, checked every 200ms; once the command has started, act
// ends the lease. It returns Run's error and how long Run took after act.
func runUntil(t *testing.T, act func(store *objstore.Store, c *coord.Coordinator)) (job.Result, error, time.Duration) {
	t.Helper()
	store, c := setup(t, nil)
	dir := t.TempDir()
	var acted time.Time
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		act(store, c)
		acted = time.Now()
	}()
	res, err := job.Run(t.Context(), store, c, "d", sh(`touch "$D/ready"; while :; do sleep 0.05; done`), &job.Options{
		Holder: "cron", TTL: time.Hour, CheckEvery: 200 * time.Millisecond, Grace: 200 * time.Millisecond,
		Env: []string{"D=" + dir},
	})
	<-done
	return res, err, time.Since(acted)
}

// quickly is the bound on stopping a job whose lease was broken or taken
// over: the check interval and the grace, and seconds of slack for a
// loaded machine. Renewals alone (every 20 minutes with a TTL of an hour)
// would take far longer.
const quickly = 200*time.Millisecond + 200*time.Millisecond + 5*time.Second

// A break stops the job within the check interval and the grace, however
// long the TTL, and the error names who broke the lease, at which token
// and when.
func TestBreakStopsTheJob(t *testing.T) {
	res, err, took := runUntil(t, func(store *objstore.Store, c *coord.Coordinator) {
		if _, err := fence.Break(context.Background(), store, c, "d", &fence.BreakOptions{Holder: "ops"}); err != nil {
			t.Error(err)
		}
	})
	var le *job.LostError
	if !errors.As(err, &le) || !errors.Is(err, coord.ErrLeaseLost) || !res.Started {
		t.Fatalf("Run = %+v, %v; want a *LostError", res, err)
	}
	if le.Cause != job.Broken || le.By != "ops" || le.Token != 2 || le.At.IsZero() {
		t.Fatalf("LostError %+v; want broken by ops at token 2, with a time", le)
	}
	if want := `lease broken by "ops" at token 2 (` + le.At.UTC().Format("2006-01-02"); !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q; want it to contain %q", err, want)
	}
	if took > quickly {
		t.Fatalf("Run returned %s after the break; want within %s", took, quickly)
	}
	t.Logf("stopped %s after the break: %v", took.Round(time.Millisecond), err)
}

// A forced takeover stops the job too, naming the new holder.
func TestTakeoverStopsTheJob(t *testing.T) {
	_, err, took := runUntil(t, func(store *objstore.Store, c *coord.Coordinator) {
		sess, err := fence.Acquire(context.Background(), store, c, "d", &fence.AcquireOptions{Holder: "H", TTL: time.Hour, Force: true})
		if err != nil {
			t.Error(err)
			return
		}
		t.Cleanup(func() { sess.Release(context.Background()) })
	})
	var le *job.LostError
	if !errors.As(err, &le) || le.Cause != job.TakenOver || le.By != "H" || le.Token != 2 {
		t.Fatalf("Run: %v (%+v); want taken over by H at token 2", err, le)
	}
	if !strings.Contains(err.Error(), `lease taken over by "H" at token 2`) {
		t.Fatalf("error %q", err)
	}
	if took > quickly {
		t.Fatalf("Run returned %s after the takeover; want within %s", took, quickly)
	}
}

// stealFirstFence lets another holder take the lease, with Force, and
// fence the store, right after the job's acquisition and before its own
// fence: as when the job's process is stopped between the two. The theft
// runs when the first manifest write (the job's fence) arrives, before
// it is passed on; by then the job has read the domain's highest token,
// and it cannot see the theft before its fence meets it.
type stealFirstFence struct {
	*memstore.Backend
	key    string
	stolen atomic.Bool
	steal  func(context.Context) error
}

func (b *stealFirstFence) Put(ctx context.Context, key string, r io.Reader, size int64, o driver.PutOptions) (driver.ObjectInfo, error) {
	if key == b.key && b.stolen.CompareAndSwap(false, true) {
		if err := b.steal(ctx); err != nil {
			return driver.ObjectInfo{}, err
		}
	}
	return b.Backend.Put(ctx, key, r, size, o)
}

// A job whose takeover fence is refused says so, and that the command
// never ran; it does not speak of a publish.
func TestTakeoverFenceRefused(t *testing.T) {
	mem := memstore.New()
	b := &stealFirstFence{Backend: mem, key: format.ManifestKey("d")}
	store, c := objstore.New(b, nil), coord.New(bucketlease.New(mem, nil))
	// The thief is another process: a Store of its own. (Through the
	// job's Store, its fence would wait for the job's fence write, which
	// is waiting for it: one Store writes a domain's manifest one write at
	// a time.)
	thief := objstore.New(mem, nil)
	b.steal = func(ctx context.Context) error {
		sess, err := fence.Acquire(ctx, thief, c, "d", &fence.AcquireOptions{Holder: "thief", TTL: time.Hour, Force: true})
		if err == nil {
			sess.Orphan()
		}
		return err
	}
	res, err := job.Run(t.Context(), store, c, "d", sh(`exit 0`), &job.Options{Holder: "cron", TTL: time.Hour})
	if !errors.Is(err, objstore.ErrFenced) || res.Started {
		t.Fatalf("Run = %+v, %v; want a fenced error, command not started", res, err)
	}
	if want := "takeover fence refused: token 1 is below 2; the command was not started"; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q; want it to contain %q", err, want)
	}
}

// Releasing the job's lease with its token from another process stops
// the job too.
func TestReleaseStopsTheJob(t *testing.T) {
	_, err, _ := runUntil(t, func(store *objstore.Store, c *coord.Coordinator) {
		st, err := c.State(context.Background(), "d")
		if err == nil {
			err = c.Release(context.Background(), coord.Lease{Domain: "d", Holder: st.Holder, Token: st.Token})
		}
		if err != nil {
			t.Error(err)
		}
	})
	var le *job.LostError
	if !errors.As(err, &le) || le.Cause != job.Released || !strings.Contains(err.Error(), "lease released by another process") {
		t.Fatalf("Run: %v; want the lease released", err)
	}
}

// dark is a coordinator that stops answering at all once down is closed.
type dark struct {
	coord.Driver
	down chan struct{}
}

func (d *dark) Renew(ctx context.Context, l coord.Lease, ttl time.Duration) (coord.Lease, error) {
	select {
	case <-d.down:
		return coord.Lease{}, errors.New("dial tcp: connection refused")
	default:
		return d.Driver.Renew(ctx, l, ttl)
	}
}

func (d *dark) State(ctx context.Context, domain string) (coord.State, error) {
	select {
	case <-d.down:
		return coord.State{}, errors.New("dial tcp: connection refused")
	default:
		return d.Driver.State(ctx, domain)
	}
}

// A coordinator that cannot be reached at all: the job is stopped before
// the lease could expire, and the error does not claim to know more.
func TestUnreachableCoordinatorStopsTheJob(t *testing.T) {
	d := &dark{down: make(chan struct{})}
	store, c := setup(t, func(inner coord.Driver) coord.Driver { d.Driver = inner; return d })
	dir := t.TempDir()
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
				close(d.down)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := job.Run(t.Context(), store, c, "d", sh(`touch "$D/ready"; while :; do sleep 0.05; done`), &job.Options{
		TTL: 600 * time.Millisecond, CheckEvery: 100 * time.Millisecond, Grace: 200 * time.Millisecond, Env: []string{"D=" + dir},
	})
	var le *job.LostError
	if !errors.As(err, &le) || le.Cause != job.Unproven || !strings.Contains(err.Error(), "lease could no longer be proven live") {
		t.Fatalf("Run: %v; want the lease unproven", err)
	}
}
