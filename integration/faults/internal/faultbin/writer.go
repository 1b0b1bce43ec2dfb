package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/internal/testhook"
	"github.com/fencedstore/fence/objstore"
)

// writer is one writer process: it loops acquire (waiting), fence,
// read-modify-write commits under background renewal, release.
type writer struct {
	cfg   spec.Writer
	main  *hist.Client
	store *objstore.Store
	// acquireStore is the Store given to fence.Acquire: store, or with
	// BreakNoClaim another one, whose claims the commits never see.
	acquireStore *objstore.Store
	fb           *faultBackend
	coord        *coord.Coordinator // over rec
	rec          *recordingDriver
	clock        coord.Clock
	rng          *rand.Rand
	stop         context.Context // cancelled by SIGTERM
	opTO         time.Duration
	// committers are the clients of the goroutines that commit under one
	// lease when Committers > 1; each keeps its numbering across leases.
	committers []*hist.Client
	// leftovers holds, per domain, the receipts of the writer's rounds
	// that were staged and never published (spec.Writer.Staged): its
	// next lease of the domain tries them first. Only the goroutine
	// that holds a lease touches it.
	leftovers map[string]map[string]leftover
}

func runWriter(cfg spec.Writer) error {
	p, err := start(cfg.History, cfg.Backend, cfg.Endpoint, cfg.Bucket)
	if err != nil {
		return err
	}
	defer p.close()
	stop, w, b := p.stop, p.w, p.b

	main := &hist.Client{Name: cfg.Client, W: w}
	fb := newFaultBackend(b, cfg, main)
	clk := newClock(time.Duration(cfg.ClockOffsetMillis)*time.Millisecond, cfg.ClockRate)
	co, err := openDriver(stop, cfg, b, clk)
	if err != nil {
		return err
	}
	// Only the token the coordinator issued last may raise a domain's
	// highest token or create the domain.
	store := objstore.New(fb, &objstore.Options{
		Holder: cfg.Client, Issuer: fence.Issuer(coord.New(co)), PlainCopies: cfg.PlainCopies,
		InlineMax: cfg.InlineMax, InlineBudget: cfg.InlineBudget,
	})
	acquireStore := store
	if cfg.Break == spec.BreakNoClaim {
		acquireStore = objstore.New(fb, &objstore.Options{Holder: cfg.Client, Issuer: fence.Issuer(coord.New(co))})
	}
	rec := &recordingDriver{Driver: co, c: main, noFloor: cfg.Break == spec.BreakNoFloor}
	wr := &writer{
		cfg: cfg, main: main, store: store, acquireStore: acquireStore, fb: fb, clock: clk, stop: stop,
		coord: coord.New(rec),
		rec:   rec,
		rng:   rand.New(rand.NewPCG(cfg.Seed, uint64(len(cfg.Client)))),
		opTO:  time.Duration(cfg.OpTimeoutMillis) * time.Millisecond,
	}
	if cfg.Break == spec.BreakStagedSkipCheck {
		testhook.SkipReceiptCheck.Store(true)
	}
	if cfg.Committers > 1 {
		for g := range cfg.Committers {
			wr.committers = append(wr.committers, &hist.Client{Name: fmt.Sprintf("%s.g%d", cfg.Client, g), W: w})
		}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				main.Event(hist.OpStats, hist.Input{}, hist.Output{Stats: fb.stats()}, "")
			}
		}
	}()
	wr.loop()
	close(done)
	main.Event(hist.OpStats, hist.Input{}, hist.Output{Stats: fb.stats()}, "exit")
	return nil
}

func (w *writer) loop() {
	for w.stop.Err() == nil {
		domain := w.cfg.Domains[w.rng.IntN(len(w.cfg.Domains))]
		// The staged workload: go back to publish leftover receipts
		// every other lease, or always in its negative control.
		if d, ok := w.leftoverDomain(); ok && (w.cfg.Break == spec.BreakStagedSkipCheck || w.rng.IntN(2) == 0) {
			domain = d
		}
		lease, noFence, ok := w.acquire(domain)
		if ok {
			if noFence {
				sleep(w.stop, time.Duration(w.cfg.NoFenceWaitMillis)*time.Millisecond)
			}
			w.hold(lease)
		}
		sleep(w.stop, time.Duration(w.rng.IntN(200))*time.Millisecond)
	}
}

// acquire runs the takeover sequence and records it as one operation:
// in the register it is the fence with the new token. With NoFence (a
// share of acquisitions, cfg.NoFence) there is no fence: the operation
// is the token's issue alone, and the holder's first commit is the
// register's write at the new token.
func (w *writer) acquire(domain string) (lease coord.Lease, noFence, ok bool) {
	id := w.main.NextID()
	noFence = w.cfg.NoFence > 0 && w.rng.Float64() < w.cfg.NoFence
	rec := w.main.Begin(id, hist.OpAcquire, hist.Input{Domain: domain, NoFence: noFence})
	w.rec.takeLast()
	// Waiting is bounded; the fence itself gets the operation timeout.
	ctx, cancel := context.WithTimeout(w.stop, 4*w.cfg.TTL()+w.opTO)
	defer cancel()
	sess, err := fence.Acquire(ctx, w.acquireStore, w.coord, domain, &fence.AcquireOptions{
		Holder: w.cfg.Client, TTL: w.cfg.TTL(), Wait: true, Clock: w.clock, NoFence: noFence,
	})
	token := w.rec.takeLast()
	if err == nil {
		// hold starts a session of its own, outside the bounded ctx.
		// Without the fence, the first commit through w.store claims
		// the token.
		lease = sess.Orphan()
		out := hist.Output{Token: lease.Token, Fence: hist.OK}
		if noFence {
			out.Fence = ""
		}
		w.main.End(rec, hist.OK, out, nil)
		return lease, noFence, true
	}
	out := hist.Output{Token: token}
	outcome := hist.Fail
	if token != 0 && !noFence { // the fence was attempted with this token
		var fe *objstore.FencedError
		var ue *objstore.UnknownOutcomeError
		switch {
		case errors.As(err, &fe):
			outcome, out.Fence, out.Highest = hist.Fenced, hist.Fenced, fe.Highest
			out.ClaimedBy, out.Issued = fe.ClaimedBy, fe.Issued
		case errors.As(err, &ue):
			outcome, out.Fence, out.CommitID = hist.Unknown, hist.Unknown, ue.CommitID
		default:
			out.Fence = hist.Fail
		}
	}
	w.main.End(rec, outcome, out, err)
	return coord.Lease{}, noFence, false
}

// hold commits under lease until the planned commits are done, the
// session ends (or, for a stubborn writer, until it is fenced or its
// stubbornness runs out), or SIGTERM; then releases.
func (w *writer) hold(lease coord.Lease) {
	session := coord.NewSession(context.Background(), w.coord, lease, &coord.SessionOptions{Clock: w.clock})
	var (
		mu     sync.Mutex
		lostAt time.Time
		fenced bool
	)
	watch := make(chan struct{})
	go func() {
		select {
		case <-session.Done():
			if !errors.Is(session.Err(), coord.ErrReleased) {
				w.main.Event(hist.OpLost, hist.Input{Domain: lease.Domain, Token: lease.Token}, hist.Output{}, fmt.Sprint(session.Err()))
			}
			mu.Lock()
			lostAt = time.Now()
			mu.Unlock()
		case <-watch:
		}
	}()
	// may says whether to start another commit.
	may := func() bool {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case w.stop.Err() != nil, fenced:
			return false
		case lostAt.IsZero():
			return true
		}
		return time.Since(lostAt) < time.Duration(w.cfg.StubbornMillis)*time.Millisecond
	}
	var wg sync.WaitGroup
	if w.cfg.Staged {
		// One committer publishing its workers' receipts (staged.go).
		wg.Go(func() { w.holdStaged(lease, may) })
	}
	for g := range max(1, w.cfg.Committers) {
		if w.cfg.Staged {
			break
		}
		c := w.main
		if w.cfg.Committers > 1 {
			c = w.committers[g]
		}
		rng := rand.New(rand.NewPCG(w.rng.Uint64(), uint64(g)))
		n := w.cfg.CommitsMin + rng.IntN(w.cfg.CommitsMax-w.cfg.CommitsMin+1)
		wg.Go(func() {
			for range n {
				if !may() {
					return
				}
				if w.rmw(c, rng, lease) == hist.Fenced {
					mu.Lock()
					fenced = true
					mu.Unlock()
					return
				}
				sleep(w.stop, time.Duration(rng.IntN(60))*time.Millisecond)
			}
		})
	}
	wg.Wait()
	close(watch)
	rec := w.main.Begin(w.main.NextID(), hist.OpRelease, hist.Input{Domain: lease.Domain, Token: lease.Token})
	ctx, cancel := context.WithTimeout(context.Background(), w.opTO)
	defer cancel()
	if err := session.Release(ctx); err != nil {
		w.main.End(rec, hist.Fail, hist.Output{}, err)
	} else {
		w.main.End(rec, hist.OK, hist.Output{}, nil)
	}
}

// rmw reads the domain and commits new values of one to all keys. The
// commit does not run under the session's context: a holder that may
// have lost its lease stops starting work, but what it has started goes
// on, and the store must reject it if it is stale.
func (w *writer) rmw(c *hist.Client, rng *rand.Rand, lease coord.Lease) string {
	prev := read(w.stop, c, w.store, lease.Domain, w.opTO)
	if prev == nil && w.stop.Err() != nil {
		return hist.Fail
	}
	id := c.NextID()
	tag := c.Tag(id)
	keys := append([]string(nil), w.cfg.Keys...)
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	keys = keys[:1+rng.IntN(len(keys))]
	sort.Strings(keys)
	puts := make(map[string]string, len(keys))
	for _, k := range keys {
		// Every value is unique, and names the value it replaced.
		puts[k] = fmt.Sprintf("%s:%s:after=%.12s", tag, k, prev[k])
	}
	in := hist.Input{Domain: lease.Domain, Token: lease.Token, Puts: puts, Tag: tag}
	rec := c.Begin(id, hist.OpCommit, in)
	changes := func() []objstore.Change { return putChanges(keys, puts) }
	outcome, err := w.commit(c, rec, lease, changes(), &objstore.CommitOptions{Holder: tag})
	return w.retryUnknown(c, id, in, lease, outcome, err, changes)
}

// retryUnknown retries the commit of operation id (input in), whose
// first attempt ended with outcome and err, while its outcome is
// unknown: with the same changes (a fresh set from changes each time)
// and token, under its commit id (UnknownOutcomeError.Retry). Each retry
// is an operation of its own, which the checker judges with the commit.
// It returns the last outcome.
func (w *writer) retryUnknown(c *hist.Client, id int64, in hist.Input, lease coord.Lease, outcome string, err error, changes func() []objstore.Change) string {
	var ue *objstore.UnknownOutcomeError
	for n := 0; n < w.cfg.Retries && outcome == hist.Unknown && errors.As(err, &ue) && w.stop.Err() == nil; n++ {
		sleep(w.stop, time.Duration(100*(n+1))*time.Millisecond)
		opts := ue.Retry()
		if w.cfg.Break == spec.BreakRetryFreshID {
			// Broken: commit the changes again as a new commit.
			opts = &objstore.CommitOptions{}
		}
		opts.Holder = in.Tag
		rid := c.NextID()
		rin := in
		rin.RetryOf, rin.CommitID, rin.After = id, ue.CommitID, ue.After
		rrec := c.Begin(rid, hist.OpRetry, rin)
		outcome, err = w.commit(c, rrec, lease, changes(), opts)
	}
	return outcome
}

// putChanges returns the changes that put puts (keys in order).
func putChanges(keys []string, puts map[string]string) []objstore.Change {
	changes := make([]objstore.Change, 0, len(keys))
	for _, k := range keys {
		changes = append(changes, objstore.PutBytes(k, []byte(puts[k])))
	}
	return changes
}

// commit sends one attempt of the commit of changes and records its
// return in rec.
func (w *writer) commit(c *hist.Client, rec hist.Record, lease coord.Lease, changes []objstore.Change, opts *objstore.CommitOptions) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), w.opTO)
	defer cancel()
	cm, err := w.store.Commit(ctx, lease.Domain, lease.Token, changes, opts)
	var fe *objstore.FencedError
	var ue *objstore.UnknownOutcomeError
	switch {
	case err == nil, errors.Is(err, objstore.ErrPlainCopy):
		// A commit whose plain copies failed landed: fence's readers see
		// it, and the next commit or SyncPlain repairs the copies.
		if err != nil {
			w.fb.plainFailed.Add(1)
		}
		c.End(rec, hist.OK, hist.Output{Seq: cm.Seq, Highest: cm.Highest, CommitID: cm.ID, Recovered: cm.Recovered, PlainFailed: err != nil}, err)
		return hist.OK, nil
	case errors.As(err, &fe):
		c.End(rec, hist.Fenced, hist.Output{Highest: fe.Highest, ClaimedBy: fe.ClaimedBy, Issued: fe.Issued}, err)
		return hist.Fenced, err
	case errors.As(err, &ue):
		c.End(rec, hist.Unknown, hist.Output{CommitID: ue.CommitID}, err)
		return hist.Unknown, err
	default:
		c.End(rec, hist.Fail, hist.Output{}, err)
		return hist.Fail, err
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
