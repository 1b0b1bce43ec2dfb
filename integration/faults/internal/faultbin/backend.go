package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/objstore"
)

// faultBackend wraps the writer's real backend. It counts how manifest
// writes end, kills or stops the process at named points of the commit
// path, and implements the broken variants of the negative controls. It
// is compiled only into this test binary.
type faultBackend struct {
	objstore.Backend
	cfg spec.Writer
	c   *hist.Client

	mu     sync.Mutex
	points map[string]int
	// cont receives SIGCONT, so that a writer that stopped itself goes on
	// only once it has been resumed: the stop is asynchronous, and the
	// write must not start before it.
	cont chan os.Signal

	manifestPuts, manifest412, manifest409, manifestErr, versionPuts atomic.Int64
}

func newFaultBackend(b objstore.Backend, cfg spec.Writer, c *hist.Client) *faultBackend {
	fb := &faultBackend{Backend: b, cfg: cfg, c: c, cont: make(chan os.Signal, 1)}
	if cfg.PauseAt != "" {
		signal.Notify(fb.cont, syscall.SIGCONT)
	}
	return fb
}

func isManifest(key string) bool { return strings.HasSuffix(key, "/_fence/manifest.json") }
func isVersion(key string) bool  { return strings.Contains(key, "/_fence/v/") }

func (b *faultBackend) Put(ctx context.Context, key string, body io.Reader, size int64, opts objstore.PutOptions) (objstore.ObjectInfo, error) {
	manifest := isManifest(key)
	if manifest {
		b.point(spec.PointBeforeManifestPut)
		if b.cfg.Break == spec.BreakUnconditional {
			opts.IfMatch, opts.IfNoneMatch = "", false
		}
	}
	info, err := b.Backend.Put(ctx, key, body, size, opts)
	switch {
	case manifest:
		b.manifestPuts.Add(1)
		switch {
		case errors.Is(err, objstore.ErrPreconditionFailed):
			b.manifest412.Add(1)
			if b.cfg.Break == spec.Break412OK {
				info, err = objstore.ObjectInfo{Key: key, Size: size, ETag: `"412-treated-as-success"`}, nil
			}
		case errors.Is(err, objstore.ErrConflict):
			b.manifest409.Add(1)
		case err != nil:
			b.manifestErr.Add(1)
		}
		if err == nil {
			b.point(spec.PointAfterManifestPut)
		}
	case isVersion(key) && err == nil:
		b.versionPuts.Add(1)
		b.point(spec.PointAfterVersionPut)
	}
	return info, err
}

// point kills or stops the process if it is configured to at name, this
// time.
func (b *faultBackend) point(name string) {
	b.mu.Lock()
	if b.points == nil {
		b.points = make(map[string]int)
	}
	b.points[name]++
	n := b.points[name]
	b.mu.Unlock()
	switch {
	case b.cfg.KillAt == name && n == b.cfg.KillAfter:
		b.c.Event(hist.OpPoint, hist.Input{}, hist.Output{}, "kill "+name)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // never returns
	case b.cfg.PauseAt == name && n == b.cfg.PauseAfter:
		for len(b.cont) > 0 {
			<-b.cont
		}
		b.c.Event(hist.OpPoint, hist.Input{}, hist.Output{}, "pause "+name)
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		select {
		case <-b.cont:
		case <-time.After(10 * time.Minute):
		}
	}
}

func (b *faultBackend) stats() map[string]int64 {
	return map[string]int64{
		"manifest_puts": b.manifestPuts.Load(),
		"manifest_412":  b.manifest412.Load(),
		"manifest_409":  b.manifest409.Load(),
		"manifest_err":  b.manifestErr.Load(),
		"version_puts":  b.versionPuts.Load(),
	}
}
