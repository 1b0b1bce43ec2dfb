package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/objstore"
)

// The staged workload (spec.Writer.Staged): a writer is a job whose
// workers stage and whose committer publishes. Each round, one worker
// goroutine per key stages its value under the lease's token
// (Store.Stage) and the committer publishes every receipt in one commit
// (objstore.PutReceipt), recorded as an ordinary commit of those values.
// A stubborn writer that was stopped past its lease goes on: its workers
// stage at the stale token and its commit must be fenced.
//
// Each lease ends with a round staged and never committed, as a job that
// died before its commit leaves; a fenced round's receipts are left over
// too. Every other lease of the writer (drawn from its seed; with
// spec.BreakStagedSkipCheck every lease) is of that domain, and the writer's next lease of that domain first commits those
// receipts, whose token is older than its own: the store must refuse
// them (a *ReceiptError, nothing published), and with
// spec.BreakStagedSkipCheck it publishes them.

// leftover is a receipt that was never published, with the value it
// holds.
type leftover struct {
	r     objstore.Receipt
	value string
}

// stagedStats counts what the staged workload did; its counters are
// part of the writer's stats events.
type stagedStats struct {
	rounds, fenced, published       atomic.Int64
	abandoned                       atomic.Int64
	stages, stageFenced, stageError atomic.Int64
	staleSent, staleRefused         atomic.Int64
	stalePublished, staleOther      atomic.Int64
}

func (s *stagedStats) stats() map[string]int64 {
	return map[string]int64{
		// Rounds committed (whatever the outcome), those whose commit
		// was fenced (a stale job's), receipts published by commits
		// that were acknowledged, and rounds staged and abandoned at
		// the end of a lease.
		"staged_rounds":        s.rounds.Load(),
		"staged_rounds_fenced": s.fenced.Load(),
		"staged_published":     s.published.Load(),
		"staged_abandoned":     s.abandoned.Load(),
		// Values staged, and stages refused as fenced or failing
		// otherwise.
		"staged_values":       s.stages.Load(),
		"staged_stage_fenced": s.stageFenced.Load(),
		"staged_stage_error":  s.stageError.Load(),
		// Commits of receipts left over from an older token: sent,
		// refused by the receipt check (*objstore.ReceiptError),
		// acknowledged (only with BreakStagedSkipCheck), ended
		// otherwise.
		"stale_receipt_commits":   s.staleSent.Load(),
		"stale_receipts_refused":  s.staleRefused.Load(),
		"stale_receipts_accepted": s.stalePublished.Load(),
		"stale_receipts_other":    s.staleOther.Load(),
	}
}

// holdStaged runs the staged workload under lease until the planned
// rounds are done or may says stop, then stages a round it abandons.
func (w *writer) holdStaged(lease coord.Lease, may func() bool) {
	c := w.main
	rng := rand.New(rand.NewPCG(w.rng.Uint64(), 0))
	w.publishLeftovers(c, lease)
	n := w.cfg.CommitsMin + rng.IntN(w.cfg.CommitsMax-w.cfg.CommitsMin+1)
	for range n {
		if !may() {
			break
		}
		if w.stagedRound(c, rng, lease) == hist.Fenced {
			return
		}
		sleep(w.stop, time.Duration(rng.IntN(60))*time.Millisecond)
	}
	if w.stop.Err() != nil {
		return
	}
	keys, puts := w.roundValues(rng, c.Tag(c.NextID())+":abandoned")
	if receipts, err := w.stageAll(lease, keys, puts); err == nil {
		w.keepLeftovers(lease.Domain, receipts, puts)
		w.fb.staged.abandoned.Add(1)
	}
}

// roundValues picks one to all of the writer's keys and a unique value
// for each, named by tag.
func (w *writer) roundValues(rng *rand.Rand, tag string) ([]string, map[string]string) {
	keys := append([]string(nil), w.cfg.Keys...)
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	keys = keys[:1+rng.IntN(len(keys))]
	sort.Strings(keys)
	puts := make(map[string]string, len(keys))
	for _, k := range keys {
		puts[k] = fmt.Sprintf("%s:%s:staged", tag, k)
	}
	return keys, puts
}

// stagedRound stages new values of one to all keys, from one worker
// goroutine each, and commits their receipts as one commit. It does not
// read the domain first, as a job's workers do not: a job stopped past
// its lease stages on its Store's cached manifest, so its workers keep
// staging at the stale token and its committer tries to commit. A round
// whose stage or commit was refused leaves its receipts over for the
// writer's next lease of the domain.
func (w *writer) stagedRound(c *hist.Client, rng *rand.Rand, lease coord.Lease) string {
	if w.stop.Err() != nil {
		return hist.Fail
	}
	id := c.NextID()
	tag := c.Tag(id)
	keys, puts := w.roundValues(rng, tag)
	receipts, err := w.stageAll(lease, keys, puts)
	if err != nil {
		w.keepLeftovers(lease.Domain, receipts, puts)
		if _, ok := errors.AsType[*objstore.FencedError](err); ok {
			return hist.Fenced
		}
		return hist.Fail
	}
	w.fb.staged.rounds.Add(1)
	in := hist.Input{Domain: lease.Domain, Token: lease.Token, Puts: puts, Tag: tag}
	rec := c.Begin(id, hist.OpCommit, in)
	changes := func() []objstore.Change { return receiptChanges(receipts) }
	outcome, err := w.commit(c, rec, lease, changes(), &objstore.CommitOptions{Holder: tag})
	outcome = w.retryUnknown(c, id, in, lease, outcome, err, changes)
	switch outcome {
	case hist.OK:
		w.fb.staged.published.Add(int64(len(receipts)))
	case hist.Fenced, hist.Fail:
		if outcome == hist.Fenced {
			w.fb.staged.fenced.Add(1)
		}
		w.keepLeftovers(lease.Domain, receipts, puts)
	}
	return outcome
}

// stageAll stages puts (one goroutine per key) under lease's token and
// returns the receipts of the stages that succeeded, and the first error
// of those that did not.
func (w *writer) stageAll(lease coord.Lease, keys []string, puts map[string]string) (map[string]objstore.Receipt, error) {
	var (
		mu    sync.Mutex
		out   = make(map[string]objstore.Receipt, len(keys))
		first error
		wg    sync.WaitGroup
	)
	for _, k := range keys {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), w.opTO)
			defer cancel()
			v := []byte(puts[k])
			r, err := w.store.Stage(ctx, lease.Domain, k, lease.Token, bytes.NewReader(v), int64(len(v)))
			mu.Lock()
			defer mu.Unlock()
			switch _, fenced := errors.AsType[*objstore.FencedError](err); {
			case err == nil:
				w.fb.staged.stages.Add(1)
				out[k] = r
			case fenced:
				w.fb.staged.stageFenced.Add(1)
			default:
				w.fb.staged.stageError.Add(1)
			}
			if err != nil && first == nil {
				first = err
			}
		})
	}
	wg.Wait()
	return out, first
}

// receiptChanges returns the changes that publish receipts, by key.
func receiptChanges(receipts map[string]objstore.Receipt) []objstore.Change {
	changes := make([]objstore.Change, 0, len(receipts))
	for _, k := range slices.Sorted(maps.Keys(receipts)) {
		changes = append(changes, objstore.PutReceipt(receipts[k]))
	}
	return changes
}

// keepLeftovers keeps receipts (of values puts) for the writer's next
// lease of domain, over any older ones of the same keys.
func (w *writer) keepLeftovers(domain string, receipts map[string]objstore.Receipt, puts map[string]string) {
	if len(receipts) == 0 {
		return
	}
	if w.leftovers == nil {
		w.leftovers = map[string]map[string]leftover{}
	}
	if w.leftovers[domain] == nil {
		w.leftovers[domain] = map[string]leftover{}
	}
	for k, r := range receipts {
		w.leftovers[domain][k] = leftover{r: r, value: puts[k]}
	}
}

// publishLeftovers commits the receipts left over from the writer's
// earlier leases of lease's domain, all at older tokens, as one commit
// of their values at lease's token, and forgets them. The store must
// refuse it with a *ReceiptError; BreakStagedSkipCheck publishes them.
func (w *writer) publishLeftovers(c *hist.Client, lease coord.Lease) {
	left := w.leftovers[lease.Domain]
	delete(w.leftovers, lease.Domain)
	if len(left) == 0 || w.stop.Err() != nil {
		return
	}
	id := c.NextID()
	tag := c.Tag(id)
	receipts := make(map[string]objstore.Receipt, len(left))
	puts := make(map[string]string, len(left))
	for k, l := range left {
		receipts[k], puts[k] = l.r, l.value
	}
	w.fb.staged.staleSent.Add(1)
	in := hist.Input{Domain: lease.Domain, Token: lease.Token, Puts: puts, Tag: tag}
	rec := c.Begin(id, hist.OpCommit, in)
	changes := func() []objstore.Change { return receiptChanges(receipts) }
	outcome, err := w.commit(c, rec, lease, changes(), &objstore.CommitOptions{Holder: tag})
	refused := errors.Is(err, objstore.ErrReceipt)
	outcome = w.retryUnknown(c, id, in, lease, outcome, err, changes)
	switch {
	case outcome == hist.OK:
		w.fb.staged.stalePublished.Add(1)
	case refused:
		w.fb.staged.staleRefused.Add(1)
	default:
		w.fb.staged.staleOther.Add(1)
	}
}

// leftoverDomain returns a domain for which the writer holds receipts
// left over from an earlier lease, if any (the first in sorted order).
// Not always choosing it keeps writers moving between domains, so that
// they take each other's domains over.
func (w *writer) leftoverDomain() (string, bool) {
	for _, d := range slices.Sorted(maps.Keys(w.leftovers)) {
		if len(w.leftovers[d]) > 0 {
			return d, true
		}
	}
	return "", false
}
