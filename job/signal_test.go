package job_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencedstore/fence/job"
	"github.com/fencedstore/fence/objstore"
)

// signalWhen sends sig on the returned channel once name exists.
func signalWhen(t *testing.T, name string, sig os.Signal) <-chan os.Signal {
	sigs := make(chan os.Signal, 1)
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(name); err == nil {
				sigs <- sig
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Errorf("%s never appeared", name)
	}()
	return sigs
}

// A signal passed on to the command starts the grace clock: what ignores
// it gets SIGKILL after Grace, Result says so, and nothing is published.
func TestSignalThenGraceThenKill(t *testing.T) {
	ctx := t.Context()
	store, c := setup(t, nil)
	dir, out := t.TempDir(), t.TempDir()
	sigs := signalWhen(t, filepath.Join(dir, "ready"), syscall.SIGTERM)
	const grace = 200 * time.Millisecond
	start := time.Now()
	res, err := job.Run(ctx, store, c, "d", sh(`trap '' TERM; echo $$ > "$D/leader"; echo a > "$OUT/a"; touch "$D/ready"; while :; do sleep 0.05; done`), &job.Options{
		TTL: 10 * time.Second, Grace: grace, Env: []string{"D=" + dir, "OUT=" + out}, Signals: sigs,
		Publish: &job.Publish{Dir: out},
	})
	took := time.Since(start)
	if err != nil || res.Interrupted != syscall.SIGTERM || res.Signal != syscall.SIGKILL || res.ExitCode != 128+int(syscall.SIGKILL) || res.Published != nil {
		t.Fatalf("Run = %+v, %v; want interrupted by SIGTERM, killed by SIGKILL, exit 137, nothing published", res, err)
	}
	if leader := readPID(t, filepath.Join(dir, "leader")); !gone(leader) {
		t.Fatalf("process group %d still has processes", leader)
	}
	if _, _, err := store.ReadAll(ctx, "d", "a"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("a: %v; want nothing published", err)
	}
	t.Logf("Run returned %s after start", took.Round(time.Millisecond))
}

// A command that exits 0 on the signal publishes nothing.
func TestSignalThenExitZeroPublishesNothing(t *testing.T) {
	ctx := t.Context()
	store, c := setup(t, nil)
	dir, out := t.TempDir(), t.TempDir()
	sigs := signalWhen(t, filepath.Join(dir, "ready"), syscall.SIGHUP)
	res, err := job.Run(ctx, store, c, "d", sh(`trap 'exit 0' HUP; echo a > "$OUT/a"; touch "$D/ready"; while :; do sleep 0.05; done`), &job.Options{
		TTL: 10 * time.Second, Env: []string{"D=" + dir, "OUT=" + out}, Signals: sigs,
		Publish: &job.Publish{Dir: out},
	})
	if err != nil || res.Interrupted != syscall.SIGHUP || res.Signal != nil || res.ExitCode != 0 || res.Published != nil {
		t.Fatalf("Run = %+v, %v; want exit 0 after SIGHUP, nothing published", res, err)
	}
	if _, _, err := store.ReadAll(ctx, "d", "a"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("a: %v; want nothing published", err)
	}
}

// The publish directory is looked for once the command has exited 0:
// the command may make it; if it is still missing, nothing is published
// and the error names it.
func TestPublishDirMadeByTheCommand(t *testing.T) {
	ctx := t.Context()
	store, c := setup(t, nil)
	out := filepath.Join(t.TempDir(), "out")
	res, err := job.Run(ctx, store, c, "d", sh(`mkdir "$OUT" && echo a > "$OUT/a"`), &job.Options{
		TTL: 10 * time.Second, Env: []string{"OUT=" + out}, Publish: &job.Publish{Dir: out},
	})
	if err != nil || res.Published == nil {
		t.Fatalf("Run = %+v, %v; want the directory the command made published", res, err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	res, err = job.Run(ctx, store, c, "e", sh(`echo a > /dev/null`), &job.Options{
		TTL: 10 * time.Second, Publish: &job.Publish{Dir: missing},
	})
	var pe *job.PublishDirError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) || res.Published != nil {
		t.Fatalf("Run = %+v, %v; want a *PublishDirError naming %s", res, err, missing)
	}
}

// A command a signal killed is reported by that signal.
func TestKilledBySignal(t *testing.T) {
	store, c := setup(t, nil)
	res, err := job.Run(t.Context(), store, c, "d", sh(`kill -USR1 $$`), &job.Options{TTL: 10 * time.Second})
	if err != nil || res.Signal != syscall.SIGUSR1 || res.ExitCode != 128+int(syscall.SIGUSR1) {
		t.Fatalf("Run = %+v, %v; want killed by SIGUSR1", res, err)
	}
	res, err = job.Run(t.Context(), store, c, "d", sh(`exit 138`), &job.Options{TTL: 10 * time.Second})
	if err != nil || res.Signal != nil || res.ExitCode != 138 {
		t.Fatalf("Run = %+v, %v; want exit 138, no signal", res, err)
	}
}
