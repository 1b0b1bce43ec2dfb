package objstore

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/fencedstore/fence/internal/cas"
	"github.com/fencedstore/fence/internal/format"
)

// Group commit. The commits of one domain serialise on its manifest: each
// is one conditional write of it. Commits made through one Store at the
// same time would otherwise race each other for that write, and each
// loser would read the manifest again and retry, so that a domain written
// by many goroutines commits a tenth as fast as its bucket takes plain
// writes, and a loser whose read-back finds the log moved past it (by its
// own neighbours) cannot tell whether it landed.
//
// So a Store writes each domain's manifest from one goroutine at a time,
// the leader, and the commits that arrive while its write is in flight
// wait in the domain's queue. When the write ends, the next leader takes
// the whole queue and publishes as many of its commits as one write may
// carry (see selectBatch) in one conditional write: each keeps its own id,
// log entry, seq and result, exactly as if they had been written one after
// another, and each is decided (landed, fenced, unknown) on its own, by
// commit.decide on every manifest read back. Nothing waits to gather a
// batch: a commit that finds no write in flight is written at once.

// groups holds the Store's commit queues, one per domain with a commit
// being published.
type groups struct {
	mu sync.Mutex
	m  map[string]*group
}

// group is one domain's queue.
type group struct {
	queue  []*waiter // commits waiting for a write, oldest first
	leader *waiter   // the waiter told to lead next, or leading; nil when idle
}

// waiter is one commit waiting in its domain's queue.
type waiter struct {
	c   *commit
	ctx context.Context
	// m and etag are the manifest c was decided on: a round starts from
	// no older one, so that no commit is judged on a manifest older than
	// one it has seen.
	m    *format.Manifest
	etag string
	// lead receives one signal when the waiter is to take the queue.
	lead chan struct{}
	// done is closed when res and err are the commit's outcome.
	done    chan struct{}
	res     CommitResult
	err     error
	inRound bool // a leader has taken it (guarded by groups.mu)
}

func (w *waiter) finish(res CommitResult, err error) {
	w.res, w.err = res, err
	close(w.done)
}

// publishGrouped publishes c, decided and uploaded on manifest m with
// ETag etag, through domain's queue, and returns its outcome.
func (s *Store) publishGrouped(ctx context.Context, c *commit, m *format.Manifest, etag string) (CommitResult, error) {
	w := &waiter{c: c, ctx: ctx, m: m, etag: etag, lead: make(chan struct{}, 1), done: make(chan struct{})}
	s.groups.join(c.domain, w)
	for {
		select {
		case <-w.done:
			return w.res, w.err
		case <-w.lead:
			s.lead(c.domain, w)
		case <-ctx.Done():
			if s.groups.leave(c.domain, w) {
				return CommitResult{}, c.fail(fmt.Errorf("objstore: commit %s to %q not applied: it was waiting for its turn to write the manifest: %w", c.id, c.domain, context.Cause(ctx)))
			}
			// It is in a write, or about to lead: its outcome comes
			// from there (the write's context ends when every one of
			// its commits' contexts has).
			ctx = context.Background()
		}
	}
}

// join queues w, and makes it the leader if no write is in flight.
func (g *groups) join(domain string, w *waiter) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = make(map[string]*group)
	}
	q := g.m[domain]
	if q == nil {
		q = &group{}
		g.m[domain] = q
	}
	q.queue = append(q.queue, w)
	if q.leader == nil {
		q.leader = w
		w.lead <- struct{}{}
	}
}

// leave takes w out of domain's queue if no leader has taken it, and
// reports whether it did. A waiter told to lead hands the lead on.
func (g *groups) leave(domain string, w *waiter) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	q := g.m[domain]
	if w.inRound || q == nil {
		return false
	}
	for i, x := range q.queue {
		if x == w {
			q.queue = append(q.queue[:i], q.queue[i+1:]...)
			if q.leader == w {
				select {
				case <-w.lead:
				default:
				}
				g.handOff(domain, q)
			}
			return true
		}
	}
	return false
}

// take hands domain's whole queue to its leader.
func (g *groups) take(domain string) []*waiter {
	g.mu.Lock()
	defer g.mu.Unlock()
	q := g.m[domain]
	ws := q.queue
	q.queue = nil
	for _, w := range ws {
		w.inRound = true
	}
	return ws
}

// release puts the waiters a round did not finish back at the head of
// domain's queue, and hands the lead to the oldest waiter. It reports
// whether the domain went idle: no commit waits.
func (g *groups) release(domain string, open []*waiter) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	q := g.m[domain]
	for _, w := range open {
		w.inRound = false
	}
	q.queue = append(open, q.queue...)
	g.handOff(domain, q)
	return q.leader == nil
}

// handOff makes the oldest waiter of q the leader, or leaves domain idle.
func (g *groups) handOff(domain string, q *group) {
	if len(q.queue) == 0 {
		q.leader = nil
		delete(g.m, domain)
		return
	}
	q.leader = q.queue[0]
	q.leader.lead <- struct{}{}
}

// lead runs one round as domain's leader: it takes the queue and
// publishes what it can of it (groupPublication), starting from the
// newest manifest the Store knows or its commits were decided on, then
// hands the lead on.
func (s *Store) lead(domain string, self *waiter) {
	// The commits that the last write finished are woken together, and
	// their goroutines' next commits arrive together: let them queue
	// before taking the queue, or the first would be written alone and
	// the rest after it, every other write carrying one commit.
	runtime.Gosched()
	ws := s.groups.take(domain)
	ctx, stop := allDone(self.ctx, ws)
	defer stop()
	m, etag, _ := s.cache.get(domain)
	for _, w := range ws {
		if w.m != nil && (m == nil || w.m.Seq > m.Seq) {
			m, etag = w.m, w.etag
		}
	}
	gp := &groupPublication{s: s, domain: domain, open: ws}
	up := cas.Update{
		Key:         format.ManifestKey(domain),
		ContentType: "application/json",
		Logger:      s.opts.Logger,
		LogAttrs:    []any{"domain", domain},
	}
	// Every commit a round ends is finished with its own outcome (by
	// Wrote, Decide or Stop), so the update's error is no one's else.
	_ = cas.Run(ctx, s.b, up, cas.Updater[*format.Manifest](gp), m, etag)
	s.groups.release(domain, gp.open)
}

// allDone returns a context that carries first's values and ends when the
// context of every waiter in ws has ended: a merged write goes on while
// any of its commits still waits for it.
func allDone(first context.Context, ws []*waiter) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(first))
	var left atomic.Int64
	left.Store(int64(len(ws)))
	stops := make([]func() bool, len(ws))
	for i, w := range ws {
		wctx := w.ctx
		stops[i] = context.AfterFunc(wctx, func() {
			if left.Add(-1) == 0 {
				cancel(context.Cause(wctx))
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel(nil)
	}
}

// groupPublication is the side of one round's conditional update of the
// manifest that the queued commits share.
type groupPublication struct {
	s       *Store
	domain  string
	open    []*waiter // taken and not yet finished, oldest first
	batch   []*waiter // what the last Decide wrote
	entries []format.LogEntry
	next    *format.Manifest
	fresh   bool  // next is the domain's first manifest
	size    int64 // next's encoded size
}

func (p *groupPublication) Read(ctx context.Context) (*format.Manifest, string, error) {
	return p.s.loadManifest(ctx, p.domain)
}

// Decide settles every open commit it can on m (commit.decide), then
// builds the manifest that applies the next batch on top of m. A batch
// whose manifest cannot be built (a failed spill or fold) fails its
// commits, and the next batch is tried.
func (p *groupPublication) Decide(ctx context.Context, m *format.Manifest) (cas.Write, bool, error) {
	if m != nil {
		p.settle(m)
	}
	for len(p.open) > 0 {
		batch := p.selectBatch(m)
		w, err := p.build(ctx, m, batch)
		if err == nil {
			return w, false, nil
		}
		if len(batch) > 1 {
			// One commit may be the cause: write the first alone, and
			// let each other commit meet its own fate in a later batch.
			if w, err1 := p.build(ctx, m, batch[:1]); err1 == nil {
				return w, false, nil
			}
			batch = batch[:1]
		}
		for _, x := range batch {
			p.finish(x, CommitResult{}, x.c.fail(err))
		}
	}
	return cas.Write{}, true, nil
}

// settle finishes each open commit that m decides.
func (p *groupPublication) settle(m *format.Manifest) {
	for i := 0; i < len(p.open); {
		x := p.open[i]
		if res, err, done := x.c.decide(m); done {
			p.finish(x, res, err)
			continue
		}
		i++
	}
}

// maxBatch returns how many commits one manifest write may carry: half
// the commit log, so that every commit of a write stays in the log it
// writes, with room to spare for other writers' commits before a lost
// reply is read back.
func (s *Store) maxBatch() int { return max(1, s.opts.LogLimit/2) }

// selectBatch returns the commits the next write carries on top of m,
// oldest first: the oldest open commit, and after it those open commits
// at the same token, up to maxBatch and to a batch of OverlayLimit
// changes, or none if the oldest raises the domain's highest token (m
// nil, or its highest below the token): such a commit is written alone,
// so that each commit's fencing is decided on a manifest that was read,
// never on one that a merged write may not land. A batch holds one token
// only, so a lower token never rides in one write with a higher one.
func (p *groupPublication) selectBatch(m *format.Manifest) []*waiter {
	first := p.open[0]
	batch := []*waiter{first}
	if m == nil || m.Highest < first.c.token {
		return batch
	}
	changes := len(first.c.puts) + len(first.c.deletes)
	for _, x := range p.open[1:] {
		if len(batch) >= p.s.maxBatch() {
			break
		}
		if x.c.token != first.c.token || x.c.isFence() {
			continue
		}
		n := len(x.c.puts) + len(x.c.deletes)
		if changes+n > format.OverlayLimit {
			continue
		}
		changes += n
		batch = append(batch, x)
	}
	return batch
}

// build returns the write of the manifest that applies batch, in order,
// on top of m.
func (p *groupPublication) build(ctx context.Context, m *format.Manifest, batch []*waiter) (cas.Write, error) {
	s := p.s
	next := m
	if next == nil {
		next = &format.Manifest{}
	}
	entries := make([]format.LogEntry, len(batch))
	for i, x := range batch {
		c := x.c
		entry := format.LogEntry{ID: c.id, Token: c.token, Holder: c.holder, Time: s.opts.Now().UTC()}
		entry.SetKeys(c.putKeys(), c.deletes)
		if c.attempt != c.id {
			entry.Attempt = c.attempt
		}
		next = next.Next(c.domain, c.token, entry, c.entries, c.deletes, s.opts.LogLimit)
		entries[i] = next.Last
	}
	// The spill and the fold write objects named for the batch's first
	// commit: a name no other write uses.
	carrier := batch[0].c
	if s.spillNeeded(next) {
		if err := carrier.spill(ctx, next); err != nil {
			return cas.Write{}, err
		}
	}
	if next.NeedsFold() {
		folded, err := carrier.fold(ctx, next)
		if err != nil {
			return cas.Write{}, err
		}
		next = folded
	}
	body, err := newManifestBody(next)
	if err != nil {
		return cas.Write{}, err
	}
	p.batch, p.entries, p.next, p.fresh, p.size = batch, entries, next, m == nil, body.Size()
	return cas.Write{Body: body, Size: body.Size()}, nil
}

func (p *groupPublication) Wrote(ctx context.Context, etag string) {
	s := p.s
	s.seen.note(p.next)
	s.cache.put(p.domain, p.next, etag)
	if p.fresh {
		s.writeFloor(ctx, p.next)
	}
	if len(p.batch) > 1 {
		s.opts.Logger.Debug("objstore: merged write", "domain", p.domain, "commits", len(p.batch), "seq", p.next.Seq, "bytes", p.size)
	}
	for i, x := range p.batch {
		p.finish(x, x.c.result(p.next, p.entries[i], false), nil)
	}
	p.batch = nil
}

// Failed marks each commit of the failed write uncertain, as a commit's
// own failed write would (publication.Failed).
func (p *groupPublication) Failed(m *format.Manifest, err error) {
	var seq uint64
	if m != nil {
		seq = m.Seq
	}
	for _, x := range p.batch {
		c := x.c
		if !c.uncertain || seq < c.uncBase {
			c.uncBase = seq
		}
		c.uncertain, c.lastErr = true, err
		c.pending, c.pendingBase = true, seq
	}
	p.batch = nil
}

// Stop ends the round: every open commit fails with err, as unknown if
// one of its writes may have landed (commit.fail).
func (p *groupPublication) Stop(err error) error {
	for len(p.open) > 0 {
		x := p.open[0]
		p.finish(x, CommitResult{}, x.c.fail(err))
	}
	return err
}

// finish ends waiter x with its outcome and drops it from the open ones.
func (p *groupPublication) finish(x *waiter, res CommitResult, err error) {
	for i, y := range p.open {
		if y == x {
			p.open = append(p.open[:i], p.open[i+1:]...)
			break
		}
	}
	x.finish(res, err)
}
