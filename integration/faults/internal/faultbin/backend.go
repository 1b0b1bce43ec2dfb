package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/plain"
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
	// plainPuts counts plain-copy writes that applied; plainFailed,
	// commits that landed with a *objstore.PlainCopyError.
	plainPuts, plainFailed atomic.Int64

	// seqs maps each manifest this writer read or wrote (its key and
	// ETag, see seqKey) to its seq, so that a manifest write's If-Match
	// names the manifest it replaces, and the new log entries it carries
	// are known: more than one when the store merged concurrent commits
	// (group commit). Guarded by mu.
	seqs map[string]uint64
	// merged counts manifest writes that carried more than one new
	// commit, mergedFailed those of them that ended with an error (a 412,
	// a lost reply, an injected unknown outcome), mergedCommits the
	// commits they carried, and mergeDropped the log entries that
	// BreakMergeDropEntry dropped from writes that then applied.
	merged, mergedFailed, mergedCommits, mergeDropped atomic.Int64
	// staged counts the staged workload (staged.go).
	staged stagedStats
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
		faulty.Rule{Op: faulty.OpPut, Match: isPlainPut, Every: true, Func: fb.plainFault},
	)
	return fb
}

func isManifest(key string) bool { return strings.HasSuffix(key, "/_fence/manifest.json") }
func isVersion(key string) bool  { return strings.Contains(key, "/_fence/v/") }

// isPlainPut: a plain copy's write, which carries its domain in metadata.
func isPlainPut(c faulty.Call) bool { return c.Opts.Metadata[plain.MetaDomain] != "" }

// plainFault is the fault of a plain copy's write: the point before it,
// where the event names the domain, the key and the seq of the commit
// the copy is from; and, in the broken variant BreakPlainBlind, a second
// stop right after the write of a writer resumed from the first.
func (b *faultBackend) plainFault(_ context.Context, c faulty.Call) faulty.Fault {
	d := c.Opts.Metadata[plain.MetaDomain]
	seq, _ := strconv.ParseUint(c.Opts.Metadata[plain.MetaSeq], 10, 64)
	in, out := hist.Input{Domain: d, Key: strings.TrimPrefix(c.Key, d+"/")}, hist.Output{Seq: seq}
	resumed := b.pointAt(spec.PointBeforePlainPut, in, out)
	return faulty.Fault{Then: func() {
		b.plainPuts.Add(1)
		if resumed && b.cfg.Break == spec.BreakPlainBlind {
			b.pause(spec.PointAfterPlainPut, in, out)
		}
	}}
}

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

// Get reads through the wrapper's rules; a whole manifest it reads is
// noted (noteSeq), so that a later write's If-Match names a known seq.
func (b *faultBackend) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	rc, info, err := b.Backend.Get(ctx, key, opts)
	if err != nil || !isManifest(key) || opts.Offset != 0 || opts.Length != 0 {
		return rc, info, err
	}
	data, rerr := io.ReadAll(rc)
	rc.Close()
	if rerr != nil {
		// Hand the store what came, then the error, as the body would.
		return io.NopCloser(io.MultiReader(bytes.NewReader(data), errReader{rerr})), info, nil
	}
	b.noteSeq(key, info.ETag, data)
	return io.NopCloser(bytes.NewReader(data)), info, nil
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// seqKey is the key of seqs for the manifest at key with ETag etag
// (quoted or not).
func seqKey(key, etag string) string { return key + "\x00" + strings.Trim(etag, `"`) }

// noteSeq notes the seq of the manifest body data stored at key with
// ETag etag.
func (b *faultBackend) noteSeq(key, etag string, data []byte) {
	m, err := format.Decode(manifestDomain(key), key, data)
	if err != nil || etag == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seqs == nil {
		b.seqs = map[string]uint64{}
	}
	b.seqs[seqKey(key, etag)] = m.Seq
}

// baseSeq returns the seq of the manifest a write with mode replaces, if
// known: 0 for a create, the noted seq of the ETag an update names.
func (b *faultBackend) baseSeq(key string, mode driver.PutMode) (uint64, bool) {
	switch md := mode.(type) {
	case driver.Create:
		return 0, true
	case driver.Update:
		b.mu.Lock()
		defer b.mu.Unlock()
		seq, ok := b.seqs[seqKey(key, md.ETag)]
		return seq, ok
	}
	return 0, false
}

func manifestDomain(key string) string { return strings.TrimSuffix(key, "/_fence/manifest.json") }

// newEntries returns how many of m's log entries are above seq base: the
// commits a write of m on top of the manifest at seq base applies.
func newEntries(m *format.Manifest, base uint64) int {
	n := 0
	for _, e := range m.Log {
		if e.Seq > base {
			n++
		}
	}
	return n
}

// dropFirstNew is BreakMergeDropEntry: it removes from m's log the entry
// of the first commit above seq base, leaving the rest as it is (the
// other entries and their seqs, the keys, m.Last), and returns m's new
// encoding.
func dropFirstNew(m *format.Manifest, base uint64) ([]byte, error) {
	for i, e := range m.Log {
		if e.Seq > base {
			m.Log = append(m.Log[:i:i], m.Log[i+1:]...)
			break
		}
	}
	return format.Encode(m)
}

// Put writes through the wrapper's rules; for a manifest it also counts
// how the write ended and the writes that carried several commits (group
// commit), drops its condition (BreakUnconditional), reports a 412 as a
// success (Break412OK) or drops a merged commit's log entry
// (BreakMergeDropEntry), and ends every UnknownEvery-th data write that
// applied with an unknown outcome.
func (b *faultBackend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	if opts.Metadata[plain.MetaDomain] != "" {
		return b.putPlain(ctx, key, body, size, opts)
	}
	if !isManifest(key) {
		return b.Backend.Put(ctx, key, body, size, opts)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return driver.ObjectInfo{}, err
	}
	m, derr := format.Decode(manifestDomain(key), key, data)
	fresh, dropped := 0, false
	if derr == nil {
		if base, ok := b.baseSeq(key, opts.Mode); ok {
			fresh = newEntries(m, base)
			if fresh > 1 && b.cfg.Break == spec.BreakMergeDropEntry {
				broken, err := dropFirstNew(m, base)
				if err != nil {
					return driver.ObjectInfo{}, fmt.Errorf("faultbin: re-encode a manifest without a merged commit's entry: %w", err)
				}
				data, size, dropped = broken, int64(len(broken)), true
			}
		}
	}
	body = bytes.NewReader(data)
	if b.cfg.Break == spec.BreakUnconditional {
		opts.Mode = nil
	}
	info, err := b.Backend.Put(ctx, key, body, size, opts)
	b.manifestPuts.Add(1)
	if fresh > 1 {
		b.merged.Add(1)
		b.mergedCommits.Add(int64(fresh))
		if err != nil {
			b.mergedFailed.Add(1)
		}
	}
	if err == nil {
		b.noteSeq(key, info.ETag, data)
		if dropped {
			b.mergeDropped.Add(1)
		}
	}
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
	if err == nil && b.injectUnknown(key, data) {
		return driver.ObjectInfo{}, errInjectedUnknown
	}
	return info, err
}

// putPlain writes a plain copy and records it in the copy log
// (hist.OpPlainPut): the seq it copies, and whether the store accepted
// it. In the broken variant BreakPlainBlind it drops the precondition.
// The record's call comes before the pause point in front of the write,
// its return after the broken variant's stop behind it.
func (b *faultBackend) putPlain(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	d := opts.Metadata[plain.MetaDomain]
	seq, _ := strconv.ParseUint(opts.Metadata[plain.MetaSeq], 10, 64)
	rec := b.c.Start(hist.OpPlainPut, hist.Input{Domain: d, Key: strings.TrimPrefix(key, d+"/")})
	if b.cfg.Break == spec.BreakPlainBlind {
		opts.Mode = nil
	}
	info, err := b.Backend.Put(ctx, key, body, size, opts)
	outcome := hist.OK
	if err != nil {
		outcome = hist.Fail
	}
	b.c.End(rec, outcome, hist.Output{Seq: seq}, err)
	return info, err
}

// point kills or stops the process if it is configured to at name, this
// time.
func (b *faultBackend) point(name string) { b.pointAt(name, hist.Input{}, hist.Output{}) }

// pointAt is point with what the event records; it reports whether the
// process stopped there and was resumed.
func (b *faultBackend) pointAt(name string, in hist.Input, out hist.Output) bool {
	b.mu.Lock()
	if b.points == nil {
		b.points = make(map[string]int)
	}
	b.points[name]++
	n := b.points[name]
	b.mu.Unlock()
	switch {
	case b.cfg.KillAt == name && n == b.cfg.KillAfter:
		b.c.Event(hist.OpPoint, in, out, "kill "+name)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // never returns
	case b.cfg.PauseAt == name && n == b.cfg.PauseAfter && b.claimPause():
		b.pause(name, in, out)
		return true
	}
	return false
}

// claimPause reports whether this writer may pause: always, unless the
// pause is claimed (spec.Writer.PauseClaim) and another writer claimed
// it first.
func (b *faultBackend) claimPause() bool {
	if b.cfg.PauseClaim == "" {
		return true
	}
	f, err := os.OpenFile(b.cfg.PauseClaim, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	_, _ = f.WriteString(b.cfg.Client + "\n")
	return f.Close() == nil
}

// pause stops the process with SIGSTOP at the point name and returns
// once it has been resumed (or after 10 minutes).
func (b *faultBackend) pause(name string, in hist.Input, out hist.Output) {
	for len(b.cont) > 0 {
		<-b.cont
	}
	b.c.Event(hist.OpPoint, in, out, "pause "+name)
	_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	select {
	case <-b.cont:
	case <-time.After(10 * time.Minute):
	}
}

func (b *faultBackend) stats() map[string]int64 {
	m := b.staged.stats()
	maps.Copy(m, map[string]int64{
		"manifest_puts": b.manifestPuts.Load(),
		"manifest_412":  b.manifest412.Load(),
		"manifest_409":  b.manifest409.Load(),
		"manifest_err":  b.manifestErr.Load(),
		"version_puts":  b.versionPuts.Load(),
		// Unknown outcomes injected, and manifest reads answered 404
		// for them.
		"unknown_injected": b.injected.Load(),
		"stale_reads":      b.forgotten.Load(),
		// Plain-copy writes that applied, and commits that landed with
		// plain copies that failed.
		"plain_puts":   b.plainPuts.Load(),
		"plain_failed": b.plainFailed.Load(),
		// Manifest writes that carried more than one new commit (group
		// commit), those that ended with an error, the commits they
		// carried, and the entries BreakMergeDropEntry dropped.
		"merged_writes":         b.merged.Load(),
		"merged_writes_failed":  b.mergedFailed.Load(),
		"merged_commits":        b.mergedCommits.Load(),
		"merge_entries_dropped": b.mergeDropped.Load(),
	})
	return m
}
