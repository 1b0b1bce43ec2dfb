package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// faultBackend wraps the writer's real backend in driver/faulty. Its
// rules kill or stop the process at named points of the commit path,
// delay manifest writes, and answer 404 for a manifest that is to be
// forgotten; its Put counts how manifest writes end, implements the
// broken variants of the negative controls and injects unknown outcomes.
// It is compiled only into this test binary.
type faultBackend struct {
	*faulty.Backend
	cfg spec.Writer
	c   *hist.Client

	mu     sync.Mutex
	points map[string]int
	// cont receives SIGCONT, so that a writer that stopped itself goes on
	// only once it has been resumed: the stop is asynchronous, and the
	// write must not start before it.
	cont chan os.Signal

	// forget is the number of reads of each manifest still to answer
	// 404 after an injected unknown outcome (see spec.Writer.UnknownEvery).
	forget    map[string]int
	dataPuts  int // data manifest writes that applied
	injected  atomic.Int64
	forgotten atomic.Int64

	manifestPuts, manifest412, manifest409, manifestErr, versionPuts atomic.Int64
}

func newFaultBackend(b driver.Backend, cfg spec.Writer, c *hist.Client) *faultBackend {
	fb := &faultBackend{Backend: faulty.New(b), cfg: cfg, c: c, cont: make(chan os.Signal, 1)}
	if cfg.PauseAt != "" {
		signal.Notify(fb.cont, syscall.SIGCONT)
	}
	manifest := func(c faulty.Call) bool { return isManifest(c.Key) }
	fb.Add(
		faulty.Rule{Op: faulty.OpGet, Match: manifest, Every: true, Func: fb.forgetRead},
		faulty.Rule{Op: faulty.OpHead, Match: manifest, Every: true, Func: fb.forgetRead},
		faulty.Rule{Op: faulty.OpPut, Match: manifest, Every: true, Func: fb.manifestFault},
		faulty.Rule{Op: faulty.OpPut, Match: func(c faulty.Call) bool { return isVersion(c.Key) }, Every: true,
			Fault: faulty.Fault{Then: func() {
				fb.versionPuts.Add(1)
				fb.point(spec.PointAfterVersionPut)
			}}},
	)
	return fb
}

func isManifest(key string) bool { return strings.HasSuffix(key, "/_fence/manifest.json") }
func isVersion(key string) bool  { return strings.Contains(key, "/_fence/v/") }

// errInjectedUnknown replaces the reply of a manifest write that applied,
// when the writer injects an unknown outcome.
var errInjectedUnknown = errors.New("faultbin: injected: the reply to this manifest write was lost (the write applied)")

// manifestFault is the fault of a manifest write: the point before it,
// then the configured delay, and the point after it once it applied.
func (b *faultBackend) manifestFault(context.Context, faulty.Call) faulty.Fault {
	b.point(spec.PointBeforeManifestPut)
	return faulty.Fault{
		Delay: time.Duration(b.cfg.DelayBeforeManifestMillis) * time.Millisecond,
		Then:  func() { b.point(spec.PointAfterManifestPut) },
	}
}

// forgetRead answers 404 for a manifest whose reads are to be forgotten.
func (b *faultBackend) forgetRead(_ context.Context, c faulty.Call) faulty.Fault {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.forget[c.Key] > 0 {
		b.forget[c.Key]--
		b.forgotten.Add(1)
		return faulty.Fault{Err: fmt.Errorf("faultbin: injected stale read of %q: %w", c.Key, objstore.ErrNotFound)}
	}
	return faulty.Fault{}
}

// injectUnknown reports whether this manifest write, which applied, is
// to end with an unknown outcome: every UnknownEvery-th that carries
// data. If so, the next two reads of the manifest are answered 404, so
// that the store's read-back fails closed rather than finding the commit.
func (b *faultBackend) injectUnknown(key string, body []byte) bool {
	if b.cfg.UnknownEvery <= 0 {
		return false
	}
	domain := strings.TrimSuffix(key, "/_fence/manifest.json")
	m, err := format.Decode(domain, key, body)
	if err != nil || m.Last.Puts+m.Last.Deletes == 0 {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dataPuts++
	if b.dataPuts%b.cfg.UnknownEvery != 0 {
		return false
	}
	if b.forget == nil {
		b.forget = map[string]int{}
	}
	b.forget[key] = 2
	b.injected.Add(1)
	return true
}

// Put writes through the wrapper's rules; for a manifest it also counts
// how the write ended, drops its condition (BreakUnconditional) or
// reports a 412 as a success (Break412OK), and ends every
// UnknownEvery-th data write that applied with an unknown outcome.
func (b *faultBackend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	if !isManifest(key) {
		return b.Backend.Put(ctx, key, body, size, opts)
	}
	if b.cfg.Break == spec.BreakUnconditional {
		opts.Mode = nil
	}
	var data []byte
	if b.cfg.UnknownEvery > 0 {
		var err error
		if data, err = io.ReadAll(body); err != nil {
			return driver.ObjectInfo{}, err
		}
		body = bytes.NewReader(data)
	}
	info, err := b.Backend.Put(ctx, key, body, size, opts)
	b.manifestPuts.Add(1)
	switch {
	case errors.Is(err, driver.ErrPreconditionFailed):
		b.manifest412.Add(1)
		if b.cfg.Break == spec.Break412OK {
			info, err = driver.ObjectInfo{Key: key, Size: size, ETag: `"412-treated-as-success"`}, nil
		}
	case errors.Is(err, driver.ErrConflict):
		b.manifest409.Add(1)
	case err != nil:
		b.manifestErr.Add(1)
	}
	if err == nil && data != nil && b.injectUnknown(key, data) {
		return driver.ObjectInfo{}, errInjectedUnknown
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
		// Unknown outcomes injected, and manifest reads answered 404
		// for them.
		"unknown_injected": b.injected.Load(),
		"stale_reads":      b.forgotten.Load(),
	}
}
