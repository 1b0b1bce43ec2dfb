package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dyntypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

// suite is what every run shares: the child binary and the servers.
type suite struct {
	env      environment
	bin      string
	dir      string
	minio    *server
	dynalite *server
	s3       *s3.Client
	dyn      *dynamodb.Client
	out      string // where reports go

	// The client of fake-gcs-server (see gcsClient).
	gcsOnce sync.Once
	gcs     *storage.Client
	gcsErr  error
}

// params are one run's settings.
type params struct {
	kind      *kind
	seed      uint64
	store     storeKind
	coord     string // spec.CoordDynamo or spec.CoordBucket
	writers   int
	readers   int
	domains   []string
	keys      []string
	ttl       time.Duration
	opTimeout time.Duration
	faultFor  time.Duration // how long the fault phase lasts
	settle    time.Duration // workload after healing
	i8Bound   time.Duration
	// coordWiped: the run wipes the coordinator's records (see
	// kind.coordWiped).
	coordWiped bool
	// plain: writers make plain copies, and readers read them.
	plain bool
	// noFence: the share of writers' acquisitions made without the
	// takeover fence (spec.Writer.NoFence).
	noFence float64
}

// faultEvent is one injected fault.
type faultEvent struct {
	Kind   string  `json:"kind"`
	Target string  `json:"target"`
	Start  float64 `json:"start_seconds"` // since the run started
	End    float64 `json:"end_seconds"`
}

// run is one run: one fault kind against a fresh bucket and table.
type run struct {
	t      *testing.T
	s      *suite
	p      params
	round  int // the long mode's round, from 0
	rng    *rand.Rand
	dir    string
	bucket string
	table  string
	start  int64 // hist.Now() at the start
	proxy  *faultProxy
	fleet  *fleet
	live   *liveView

	mu          sync.Mutex
	faults      []faultEvent
	stoppedByUs map[int]bool
	takers      int
	crashes     []string // servers that crashed on their own
	direct      driver.Backend
	directCo    *coord.Coordinator
	healedAt    int64
	notes       []string
	plainc      *hist.Client // the suite's own plain reads
	staged      []stagedCopy // older plain copies sent after a newer one
}

func (r *run) since(ns int64) float64 { return float64(ns-r.start) / 1e9 }

func (r *run) logf(format string, args ...any) {
	msg := fmt.Sprintf("%6.2fs %s", r.since(hist.Now()), fmt.Sprintf(format, args...))
	r.mu.Lock()
	r.notes = append(r.notes, msg)
	r.mu.Unlock()
	r.t.Log(msg)
}

// fault records a fault that began at start and ended now.
func (r *run) fault(kind, target string, start int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, faultEvent{Kind: kind, Target: target, Start: r.since(start), End: r.since(hist.Now())})
}

// sleep waits d.
func sleep(d time.Duration) { time.Sleep(d) }

// execute runs the workload with the fault, then checks and reports.
func (r *run) execute() *report {
	t := r.t
	ctx := context.Background()
	r.ensureServers()
	r.provision(ctx)

	// On Azurite, which keeps no versions, every route to the store is
	// recorded (record_emul_test.go), the suite's own too.
	wire := r.p.store == storeAzure
	names := r.storeRoutes()
	if wire {
		names = append(names, directRoute)
	}
	routes := make([]spec.Route, 0, len(names)+r.p.writers)
	for _, name := range names {
		routes = append(routes, spec.Route{Name: name, Upstream: r.upstream(), HTTP: true, Record: wire, UpstreamHost: r.p.store == storeGCS})
	}
	for i := range r.p.writers {
		routes = append(routes, spec.Route{Name: fmt.Sprintf("dyn-%d", i), Upstream: r.s.dynalite.addr()})
	}
	pcfg := spec.Proxy{Routes: routes, Seed: r.p.seed}
	if wire {
		pcfg.Record = r.wirePath()
	}
	px, err := startProxy(r.s.bin, r.dir, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	r.proxy = px
	defer px.stop()
	r.openDirect()

	r.fleet = &fleet{bin: r.s.bin, dir: r.dir, logf: r.logf, env: r.childEnv()}
	defer r.fleet.kill()
	if err := r.fleet.startWriters(r.writerConfigs()); err != nil {
		t.Fatal(err)
	}
	if err := r.fleet.startGC(spec.GC{
		Client: "gc", History: filepath.Join(r.dir, "hist-gc.jsonl"),
		Backend: r.backend(spec.BackendS3), Endpoint: r.endpointAt(r.proxy.addr(gcRoute)), Bucket: r.bucket, Domains: r.p.domains,
		Seed: r.p.seed, PauseMillis: 50, OpTimeoutMillis: r.p.opTimeout.Milliseconds(),
		Break: r.p.kind.control,
	}); err != nil {
		t.Fatal(err)
	}
	if err := r.fleet.startReader(spec.Reader{
		Clients: clientNames("r", r.p.readers), History: filepath.Join(r.dir, "hist-readers.jsonl"),
		Backend: r.backend(spec.BackendMinio), Endpoint: r.endpointAt(r.proxy.addr(readerRoute)), Bucket: r.bucket, Domains: r.p.domains,
		Seed: r.p.seed, PauseMillis: 60, OpTimeoutMillis: r.p.opTimeout.Milliseconds(),
		Plain: r.p.plain, Keys: r.p.keys,
	}); err != nil {
		t.Fatal(err)
	}
	r.live = newLiveView(r.dir)
	stopWatch := r.watchServers()
	defer stopWatch()

	// Warm up: wait for a few acknowledged commits (at most 30 s).
	r.waitFor(30*time.Second, "3 acknowledged commits", func() bool { return r.live.commits() >= 3 })

	// The fault phase, with the writers that stop themselves at a pause
	// point resumed once they are stale.
	stopResumer := r.resumeSelfPaused()
	faultStart := hist.Now()
	r.logf("fault phase: %s for %s", r.p.kind.name, r.p.faultFor)
	// Inject, again and again while at least 2 TTLs of the phase remain
	// (in the quick mode the phase fits one injection).
	for {
		if err := r.p.kind.inject(r); err != nil {
			r.logf("inject: %v", err)
			t.Errorf("%s: injecting the fault failed: %v", r.p.kind.name, err)
			break
		}
		rest := r.p.faultFor - time.Duration(hist.Now()-faultStart)
		if rest < 2*r.p.ttl {
			sleep(max(rest, 0))
			break
		}
		sleep(r.p.ttl)
	}
	stopResumer()
	stopWatch()
	if r.p.kind.standing != "" {
		r.fault(r.p.kind.name, r.p.kind.standing, r.start)
	}
	r.heal()
	r.logf("healed; the workload goes on for %s", r.p.settle)
	sleep(r.p.settle)
	r.fleet.stop(30 * time.Second)
	r.logf("processes stopped")

	rep := r.finish(ctx)
	return rep
}

// provision creates the run's bucket (provisionStore) and its table.
func (r *run) provision(ctx context.Context) {
	r.provisionStore(ctx)
	if err := dynamocoord.CreateTable(ctx, r.s.dyn, r.table); err != nil {
		r.t.Fatalf("create table %s: %v", r.table, err)
	}
}

func clientNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// writerConfigs returns the writers' configurations: on MinIO half use
// aws-sdk-go-v2 and half minio-go (on an emulator, its cloud's SDK),
// half are stubborn (they go on
// committing for a while after their session ended, until fenced), and
// the fault kind adjusts them.
func (r *run) writerConfigs() []spec.Writer {
	out := make([]spec.Writer, r.p.writers)
	for i := range out {
		w := spec.Writer{
			Client:   fmt.Sprintf("w%d", i),
			History:  filepath.Join(r.dir, fmt.Sprintf("hist-w%d.jsonl", i)),
			Backend:  r.backend([]string{spec.BackendS3, spec.BackendMinio}[i%2]),
			Endpoint: r.endpointAt(r.proxy.addr(fmt.Sprintf("s3-%d", i))),
			Dynamo:   "http://" + r.proxy.addr(fmt.Sprintf("dyn-%d", i)),
			Bucket:   r.bucket, Table: r.table, Coord: r.p.coord,
			Domains: r.p.domains, Keys: r.p.keys,
			Seed:            r.rng.Uint64(),
			TTLMillis:       r.p.ttl.Milliseconds(),
			OpTimeoutMillis: r.p.opTimeout.Milliseconds(),
			Committers:      1, CommitsMin: 8, CommitsMax: 30,
			Retries:     3,
			PlainCopies: r.p.plain,
			NoFence:     r.p.noFence,
			// A quarter of the TTL between a NoFence acquisition and
			// its first commit: its renewals start after the wait, well
			// inside its lease.
			NoFenceWaitMillis: (r.p.ttl / 4).Milliseconds(),
			Break:             r.p.kind.control,
		}
		if i%2 == 0 {
			w.StubbornMillis = (3 * r.p.ttl / 2).Milliseconds()
		}
		if i == 2 || i == 3 {
			// One writer of each SDK makes every eighth data commit end
			// unknown after it applied, and retries it.
			w.UnknownEvery = 8
		}
		switch i {
		case 0, 3:
			// One writer of each SDK writes every value to a version
			// object of its own; the others keep theirs inline in the
			// manifest, and writers 2 and 5 with a budget so small that
			// most commits move older inline values out to their
			// version objects.
			w.InlineMax = -1
		case 2, 5:
			w.InlineBudget = 96
		}
		if r.p.kind.writers != nil {
			r.p.kind.writers(r, i, &w)
		}
		out[i] = w
	}
	return out
}

// waitFor polls cond (refreshing the live view) every 100 ms for at most
// limit.
func (r *run) waitFor(limit time.Duration, what string, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for {
		r.live.refresh()
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			r.logf("gave up waiting for %s after %s", what, limit)
			return false
		}
		sleep(100 * time.Millisecond)
	}
}

// holders returns the writers that hold a lease now, by the live view.
func (r *run) holders() []lease {
	r.live.refresh()
	var out []lease
	for _, l := range r.live.leases() {
		if c := r.fleet.byName(l.client); c != nil && !c.stopped() {
			out = append(out, l)
		}
	}
	return out
}

// pickHolder waits (at most 20 s) for a writer that holds a lease and
// returns one at random.
func (r *run) pickHolder() (lease, *child, bool) {
	return r.pickHolderOf("a lease holder", func(*child) bool { return true })
}

// pickHolderOf waits (at most 20 s) for a writer that holds a lease and
// satisfies ok, and returns one at random; what names them in the log.
func (r *run) pickHolderOf(what string, ok func(*child) bool) (lease, *child, bool) {
	var ls []lease
	r.waitFor(20*time.Second, what, func() bool {
		ls = slices.DeleteFunc(r.holders(), func(l lease) bool {
			c := r.fleet.byName(l.client)
			return c == nil || !ok(c)
		})
		return len(ls) > 0
	})
	if len(ls) == 0 {
		return lease{}, nil, false
	}
	l := ls[r.rng.IntN(len(ls))]
	c := r.fleet.byName(l.client)
	return l, c, c != nil
}

// stopPastTakeover stops holder c of l with SIGSTOP until its lease has
// expired and another holder has taken the domain over, then resumes it.
func (r *run) stopPastTakeover(c *child, l lease) {
	r.mu.Lock()
	r.stoppedByUs[c.pid()] = true
	r.mu.Unlock()
	start := hist.Now()
	c.signal(syscall.SIGSTOP)
	r.logf("SIGSTOP %s, holder of %s token %d, until it is taken over", c.name, l.domain, l.token)
	sleep(r.p.ttl)
	r.ensureTakeover(l.domain, l.token)
	c.signal(syscall.SIGCONT)
	r.mu.Lock()
	delete(r.stoppedByUs, c.pid())
	r.mu.Unlock()
	r.fault("sigstop", c.name+" past its TTL", start)
}

// resumeSelfPaused watches for writers that stopped themselves at a pause
// point and resumes each once a higher token than its own has been
// accepted in its domain (so that what it does next is stale), or after
// 8 TTLs. It returns a function that stops watching.
func (r *run) resumeSelfPaused() func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		handled := map[int]bool{}
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			for _, c := range r.fleet.writers() {
				r.mu.Lock()
				ours := r.stoppedByUs[c.pid()]
				r.mu.Unlock()
				if ours || handled[c.pid()] || !c.stopped() {
					continue
				}
				handled[c.pid()] = true
				r.live.refresh()
				if ev, ok := r.live.lastPoint(c.name); ok && ev.Err == "pause "+spec.PointBeforePlainPut {
					r.resumePlainPaused(c, ev)
					continue
				}
				l, held := r.live.holder(c.name)
				start := hist.Now()
				r.logf("%s stopped itself at its pause point (lease %v %s %d)", c.name, held, l.domain, l.token)
				if held {
					r.ensureTakeover(l.domain, l.token)
				}
				c.signal(syscall.SIGCONT)
				r.fault("sigstop", c.name+" at its pause point", start)
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// ensureTakeover waits until a token above token has been accepted in
// domain, as one of the writers waiting for it takes over; if none has
// within 1.5 TTLs (no writer happened to want the domain), the suite
// takes the domain over itself, as a writer would (waiting for the lease
// to expire), recorded in the history as client taker-N.
func (r *run) ensureTakeover(domain string, token uint64) {
	store := objstore.New(r.directBackend(), &objstore.Options{SkipProbe: true})
	higher := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h, err := store.Highest(ctx, domain)
		return err == nil && h > token
	}
	deadline := time.Now().Add(3 * r.p.ttl / 2)
	for time.Now().Before(deadline) {
		if higher() {
			r.logf("%s has a token above %d", domain, token)
			return
		}
		sleep(100 * time.Millisecond)
	}
	err := r.takeOver(domain, r.p.keys[0], r.p.plain)
	r.logf("no writer took %s over from token %d; the suite did: %v", domain, token, err)
}

// takeOver takes domain over as a writer would (waiting for the lease to
// expire, then fencing) and commits a new value of key, with plain
// copies if plainCopies, recorded in the history as client taker-N.
func (r *run) takeOver(domain, key string, plainCopies bool) error {
	r.mu.Lock()
	r.takers++
	name := fmt.Sprintf("taker-%d", r.takers)
	r.mu.Unlock()
	w, err := hist.Create(filepath.Join(r.dir, "hist-"+name+".jsonl"))
	if err != nil {
		r.t.Errorf("take over %s: %v", domain, err)
		return err
	}
	defer w.Close()
	c := &hist.Client{Name: name, W: w}
	ctx, cancel := context.WithTimeout(context.Background(), 4*r.p.ttl+r.p.opTimeout)
	defer cancel()
	store := objstore.New(r.directBackend(), &objstore.Options{Holder: name, Issuer: fence.Issuer(r.directCoord()), PlainCopies: plainCopies})
	return probeOnce(ctx, c, store, &recorder{Driver: r.directCoord().Driver(), c: c}, domain, []string{key}, r.p.ttl)
}

// readerRoute is the proxy route of the reader processes to the store,
// and gcRoute the garbage collector's.
const (
	readerRoute = "s3-readers"
	gcRoute     = "s3-gc"
)

// storeRoutes names the proxy routes of the run's processes to the store
// (MinIO, or an emulator), each with an HTTP fault layer: one per writer
// slot ("s3-<slot>", whatever the store), the readers' route and the
// collector's.
func (r *run) storeRoutes() []string {
	names := make([]string, 0, r.p.writers+2)
	for i := range r.p.writers {
		names = append(names, fmt.Sprintf("s3-%d", i))
	}
	return append(names, readerRoute, gcRoute)
}

// waitIssue waits at most limit for a token to be issued, by the live
// view, and returns it as soon as it is seen (polling every 10 ms): its
// holder is then, most likely, between its acquisition and its fence.
func (r *run) waitIssue(limit time.Duration) (issue, bool) {
	r.live.refresh()
	seen := r.live.issueCount()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		r.live.refresh()
		if is, ok := r.live.issueAfter(seen); ok {
			return is, true
		}
		sleep(10 * time.Millisecond)
	}
	return issue{}, false
}

// wipeLease deletes domain's lease record at the coordinator: its item
// in DynamoDB, or its lease record object in the bucket. The token
// counter goes with it.
func (r *run) wipeLease(domain, why string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := hist.Now()
	var err error
	if r.p.coord == spec.CoordBucket {
		err = r.directBackend().Delete(ctx, rules.SystemKey(domain, bucketlease.RecordName))
	} else {
		_, err = r.s.dyn.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(r.table),
			Key:       map[string]dyntypes.AttributeValue{"domain": &dyntypes.AttributeValueMemberS{Value: domain}},
		})
	}
	if err != nil {
		return fmt.Errorf("wipe the lease record of %s: %w", domain, err)
	}
	r.logf("wiped the lease record of %s (%s)", domain, why)
	r.fault("coord-wipe", domain+" "+why, start)
	return nil
}

// heal ends every fault: toxics removed, HTTP faults off, every writer
// resumed, both servers running.
func (r *run) heal() {
	if err := r.proxy.heal(); err != nil {
		r.t.Errorf("heal the proxy: %v", err)
	}
	for _, name := range r.storeRoutes() {
		if _, err := r.proxy.setHTTP(name, &spec.HTTPFaults{}); err != nil {
			r.t.Errorf("heal the HTTP faults: %v", err)
		}
	}
	for _, c := range r.fleet.writers() {
		c.signal(syscall.SIGCONT)
	}
	r.ensureServers()
	r.healedAt = hist.Now()
}

// ensureServers restarts a server that is not running: one the fault
// left down, or one that died on its own (which is noted).
func (r *run) ensureServers() {
	for _, s := range []*server{r.s.minio, r.s.dynalite} {
		msg, err := s.ensure()
		if msg != "" {
			r.logf("%s", msg)
		}
		if err != nil {
			r.t.Fatalf("restart %s: %v", s.name, err)
		}
	}
}

// openDirect opens the run's bucket and table for the suite's own reads
// and writes, without faults (openStore). Both are safe for concurrent
// use.
func (r *run) openDirect() {
	b := r.openStore()
	r.direct = b
	if r.p.coord == spec.CoordBucket {
		r.directCo = coord.New(bucketlease.New(b, nil))
		return
	}
	d, err := dynamocoord.Open(context.Background(), r.table, &dynamocoord.OpenOptions{Endpoint: r.s.dynalite.url(), Region: "us-east-1"})
	if err != nil {
		r.t.Fatal(err)
	}
	r.directCo = coord.New(d)
}

// watchServers restarts a server that crashes while the workload runs
// (dynalite has been seen to exit with status 1 and nothing in its log,
// about once in 30 runs), records it as a fault, and notes it. It returns
// a function that stops watching.
func (r *run) watchServers() func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(500 * time.Millisecond):
			}
			for _, s := range []*server{r.s.minio, r.s.dynalite} {
				if !s.crashed() {
					continue
				}
				start := hist.Now()
				msg, err := s.ensure()
				r.logf("%s", msg)
				if err != nil {
					r.t.Errorf("restart %s: %v", s.name, err)
				}
				r.fault("server-crash", s.name, start)
				r.mu.Lock()
				r.crashes = append(r.crashes, s.name)
				r.mu.Unlock()
			}
		}
	})
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// directBackend returns the suite's own backend of the store (openStore).
func (r *run) directBackend() driver.Backend { return r.direct }

// directCoord returns the run's coordinator, reaching dynalite directly
// (or, for bucket leases, the store through directBackend).
func (r *run) directCoord() *coord.Coordinator { return r.directCo }
