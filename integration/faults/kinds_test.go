package faults

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/rules"
)

// kind is one fault kind, or one negative control.
type kind struct {
	name string
	// control names the deliberately broken variant the writers run
	// (spec.Break*); empty for a real run.
	control string
	// mustCatch lists the checks (invariant names, or "porcupine") of
	// which at least one must catch the control.
	mustCatch []string
	// faultFor overrides the fault phase's length, in TTLs.
	faultTTLs float64
	// setup adjusts the run's parameters.
	setup func(p *params)
	// writers adjusts writer i's configuration.
	writers func(r *run, i int, w *spec.Writer)
	// inject runs the fault phase (at most about faultFor) and undoes
	// what it did; anything left is healed after it.
	inject func(r *run) error
	// bit says whether the fault did what it is meant to, from the report.
	bit func(rep *report) (bool, string)
	// standing describes a fault that lasts the whole workload (set up
	// by writers); it is recorded as one fault from start to healing.
	standing string
	// coordWiped: the kind destroys the coordinator's records on
	// purpose, so tokens are issued again; I5 and the token partitions
	// do not apply, and I10 must hold instead. (A kind that forgets
	// lease records in the bucket does too: see params.coordWiped.)
	coordWiped bool
	// altCoord, when set, is the coordinator of even rounds; odd rounds
	// use the other one.
	altCoord string
	// store is where the run keeps its data: MinIO unless set. The
	// kind skips when its emulator is not configured (needStore).
	store storeKind
}

// pausePoint makes writer 1 stop itself mid-commit (versions uploaded,
// manifest not yet written) on its third manifest write; the suite
// resumes it once another writer has taken its domain over.
func pausePoint(_ *run, i int, w *spec.Writer) {
	if i == 1 {
		w.PauseAt, w.PauseAfter = spec.PointBeforeManifestPut, 3
	}
}

// stopStubbornHolder stops, with SIGSTOP, a stubborn (even-numbered)
// lease holder until another writer has taken its domain over, then
// resumes it: a stubborn writer goes on committing when resumed, so its
// stop makes a stale holder whatever it was doing. It never stops writer
// 1, whose own pause point would then come too late.
func stopStubbornHolder(r *run) error {
	l, c, ok := r.pickHolderOf("a stubborn lease holder", func(c *child) bool { return c.slot%2 == 0 })
	if !ok {
		return fmt.Errorf("no stubborn lease holder to stop")
	}
	r.stopPastTakeover(c, l)
	return nil
}

func staleBit(rep *report) (bool, string) {
	s := rep.Staleness
	return s.Windows > 0, fmt.Sprintf("%d stale-holder windows, %d stale commits attempted", s.Windows, s.CommitsAttempt)
}

func count(rep *report, op, outcome string) int { return rep.Ops[op][outcome] }

func lostSessions(rep *report) int {
	return rep.Ops[hist.OpLost]["event"]
}

var kinds = []*kind{
	{
		name: "sigstop",
		// A holder stopped past its TTL by the suite, and one that stops
		// itself mid-commit.
		faultTTLs: 3,
		writers:   pausePoint,
		inject:    stopStubbornHolder,
		bit:       staleBit,
	},
	{
		name: "bucket-leases",
		// The sigstop fault again, with the lease records kept in the
		// bucket (coord/bucketlease, the default without DynamoDB)
		// instead of DynamoDB: leases, renewals and tokens then go
		// through the same S3 route as the data, and the floor comes from
		// the same store the fence writes to.
		faultTTLs: 3,
		setup:     func(p *params) { p.coord = spec.CoordBucket },
		writers:   pausePoint,
		inject:    stopStubbornHolder,
		bit:       staleBit,
	},
	{
		name:      "sigkill",
		faultTTLs: 3,
		writers: func(r *run, i int, w *spec.Writer) {
			points := []string{spec.PointAfterVersionPut, spec.PointBeforeManifestPut, spec.PointAfterManifestPut}
			if i < len(points) {
				w.KillAt, w.KillAfter = points[i], 2+r.rng.IntN(4)
			}
		},
		inject: func(r *run) error {
			sleep(r.p.ttl)
			_, c, ok := r.pickHolder()
			if !ok {
				return fmt.Errorf("no lease holder to kill")
			}
			start := hist.Now()
			c.signal(syscall.SIGKILL)
			r.logf("SIGKILL %s", c.name)
			r.fault("sigkill", c.name, start)
			return nil
		},
		bit: func(rep *report) (bool, string) {
			kills := rep.FaultCount["sigkill"]
			for _, f := range rep.Faults {
				if f.Kind == "point" {
					kills++
				}
			}
			return kills > 0 && rep.Restarts > 0, fmt.Sprintf("%d kills, %d writers replaced, %d operations left pending", kills, rep.Restarts, pendingOps(rep))
		},
	},
	{
		name:      "minio-restart",
		faultTTLs: 2.5,
		inject: func(r *run) error {
			sleep(time.Duration(r.rng.IntN(1000)) * time.Millisecond)
			start := hist.Now()
			r.s.minio.kill()
			r.logf("MinIO killed")
			sleep(time.Second + time.Duration(r.rng.IntN(1000))*time.Millisecond)
			err := r.s.minio.start(true)
			r.logf("MinIO restarted on its data directory")
			r.fault("minio-restart", "minio", start)
			return err
		},
		bit: func(rep *report) (bool, string) {
			n := 0
			for op, m := range rep.Ops {
				if op != hist.OpIssue {
					n += m[hist.Fail] + m[hist.Unknown]
				}
			}
			spans := rep.FaultSpans["minio-restart"]
			return n+spans > 0, fmt.Sprintf("%d operations failed or ended unknown, %d waited through the outage", n, spans)
		},
	},
	{
		name:      "dynalite-restart",
		faultTTLs: 3,
		inject: func(r *run) error {
			// Kill it while leases are held, so that sessions cannot renew.
			r.pickHolder()
			start := hist.Now()
			r.s.dynalite.kill()
			r.logf("dynalite killed")
			sleep(2 * r.p.ttl)
			err := r.s.dynalite.start(true)
			r.logf("dynalite restarted with --path on its data directory")
			r.fault("dynalite-restart", "dynalite", start)
			return err
		},
		bit: func(rep *report) (bool, string) {
			n := rep.FaultSpans["dynalite-restart"]
			return n > 0, fmt.Sprintf("%d operations waited through the outage, %d releases failed, %d sessions lost", n, count(rep, hist.OpRelease, hist.Fail), lostSessions(rep))
		},
	},
	{
		name:      "partition",
		faultTTLs: 3,
		inject: func(r *run) error {
			l, c, ok := r.pickHolder()
			if !ok {
				return fmt.Errorf("no lease holder to partition")
			}
			slot := c.slot
			other := (slot + 1 + r.rng.IntN(r.p.writers-1)) % r.p.writers
			start := hist.Now()
			if err := r.proxy.blackhole(fmt.Sprintf("s3-%d", slot)); err != nil {
				return err
			}
			if err := r.proxy.blackhole(fmt.Sprintf("dyn-%d", slot)); err != nil {
				return err
			}
			if err := r.proxy.dropReplies(fmt.Sprintf("s3-%d", other), 500); err != nil {
				return err
			}
			r.logf("partitioned %s (holder of %s token %d) from S3 and DynamoDB; dropping S3 replies to slot %d", c.name, l.domain, l.token, other)
			r.ensureTakeover(l.domain, l.token)
			if rest := 5*r.p.ttl/2 - time.Duration(hist.Now()-start); rest > 0 {
				sleep(rest)
			}
			err := r.proxy.heal()
			r.fault("partition", c.name+" from S3 and DynamoDB", start)
			r.fault("dropped-replies", fmt.Sprintf("slot %d S3 replies", other), start)
			return err
		},
		bit: func(rep *report) (bool, string) {
			// The cut-off holder was stuck mid-operation, or (idle when
			// the partition began) could not renew and lost its session.
			spans := rep.FaultSpans["partition"]
			return spans > 0 || lostSessions(rep) > 0, fmt.Sprintf("%d operations stuck through the partition, %d sessions lost, %d commits unknown, %d recovered", spans, lostSessions(rep), count(rep, hist.OpCommit, hist.Unknown), rep.Recovered)
		},
	},
	{
		name:      "asymmetric",
		faultTTLs: 3.5,
		writers: func(r *run, _ int, w *spec.Writer) {
			// Leases held for the whole run unless lost, so that the
			// holder cut off is mid-lease; and every writer goes on
			// committing after its session ends, until it is fenced: the
			// cut-off holder cannot renew but still writes.
			w.CommitsMin, w.CommitsMax = 1000, 1000
			w.StubbornMillis = (4 * r.p.ttl).Milliseconds()
		},
		inject: func(r *run) error {
			l, c, ok := r.pickHolder()
			if !ok {
				return fmt.Errorf("no lease holder to partition")
			}
			start := hist.Now()
			if err := r.proxy.blackhole(fmt.Sprintf("dyn-%d", c.slot)); err != nil {
				return err
			}
			r.logf("%s (holder of %s token %d) reaches S3 but not DynamoDB", c.name, l.domain, l.token)
			r.ensureTakeover(l.domain, l.token)
			if rest := 3*r.p.ttl - time.Duration(hist.Now()-start); rest > 0 {
				sleep(rest)
			}
			err := r.proxy.heal()
			r.fault("asymmetric-partition", c.name+" from DynamoDB only", start)
			return err
		},
		bit: staleBit,
	},
	{
		name:      "clock-skew",
		faultTTLs: 4,
		writers: func(r *run, i int, w *spec.Writer) {
			ttl := r.p.ttl.Milliseconds()
			switch i {
			case 0:
				w.ClockOffsetMillis = 9 * ttl / 10
			case 1:
				w.ClockOffsetMillis = -9 * ttl / 10
			case 2:
				w.ClockRate = 1.25
			case 3:
				w.ClockRate = 0.8
			case 4:
				w.ClockOffsetMillis, w.ClockRate = ttl/2, 1.1
			}
		},
		standing: "w0 +0.9 TTL, w1 -0.9 TTL, w2 x1.25, w3 x0.8, w4 +0.5 TTL x1.1",
		inject:   func(*run) error { return nil },
		bit: func(rep *report) (bool, string) {
			return lostSessions(rep) > 0 || rep.Staleness.Windows > 0, fmt.Sprintf("%d sessions lost, %d stale-holder windows", lostSessions(rep), rep.Staleness.Windows)
		},
	},
	{
		name:      "http-errors",
		faultTTLs: 3,
		inject:    httpErrors,
		bit: func(rep *report) (bool, string) {
			// Writers met replies replaced after their request applied,
			// and readers met refusals too.
			h, rd := rep.HTTPFaults, rep.HTTPReaders
			return h.Applied503 > 0 && h.Refused503+h.Refused500 > 0 && rd.Refused503+rd.Refused500 > 0,
				fmt.Sprintf("%d refused with 503, %d with 500 (%d of them readers' requests), %d applied then 503; %d commits recovered by read-back",
					h.Refused503, h.Refused500, rd.Refused503+rd.Refused500, h.Applied503, rep.Recovered)
		},
	},
	{
		name:      "contention",
		faultTTLs: 3.5,
		setup:     func(p *params) { p.domains = p.domains[:1] },
		writers: func(r *run, _ int, w *spec.Writer) {
			w.Committers, w.CommitsMin, w.CommitsMax = 3, 3, 8
			w.StubbornMillis = (2 * r.p.ttl).Milliseconds()
		},
		inject: func(r *run) error {
			// Overlapping holders as well as concurrent committers.
			l, c, ok := r.pickHolder()
			if !ok {
				return fmt.Errorf("no lease holder to stop")
			}
			r.stopPastTakeover(c, l)
			return nil
		},
		// The holders' committers contended for the manifest: writes
		// answered 412, or (since group commit, which queues one Store's
		// concurrent commits of a domain instead of letting them race
		// for the write) commits merged into one write.
		bit: func(rep *report) (bool, string) {
			n412, n409 := rep.ManifestPuts["manifest_412"], rep.ManifestPuts["manifest_409"]
			return n412 > 0 || rep.Merged.Writes > 0, fmt.Sprintf("%d manifest writes answered 412, %d answered 409; %d merged writes in the store's record (%d commits)", n412, n409, rep.Merged.Writes, rep.Merged.Commits)
		},
	},
	{
		name: "group-commit",
		// Every writer commits from 8 goroutines at once through its one
		// Store, so that the store merges the commits queued on its
		// domain into one manifest write (group commit,
		// objstore/group.go), and merged writes meet trouble: for the
		// fault phase the HTTP layer lets 15% of the writers' PUTs apply
		// and answers them 503 (the SDK sends the write again, which the
		// moved ETag refuses with 412, and the store reads back to settle
		// each commit of the write), writers 2 and 3 lose the reply of
		// every eighth data write as always (each commit of a merged one
		// then ends unknown and is retried), and a stubborn holder is
		// stopped past its TTL with its goroutines mid-commit.
		faultTTLs: 3,
		writers:   groupWriters,
		inject:    groupCommitFault,
		bit: func(rep *report) (bool, string) {
			mg, failed := rep.Merged, rep.ManifestPuts["merged_writes_failed"]
			return mg.Writes > 0 && failed > 0, fmt.Sprintf("%d merged writes in the store's record (%d commits, at most %d in one), %d merged writes ended with an error; %d applied then 503, %d commits recovered by read-back, %d stale-holder windows",
				mg.Writes, mg.Commits, mg.Max, failed, rep.HTTPFaults.Applied503, rep.Recovered, rep.Staleness.Windows)
		},
	},

	{
		name: "coord-wipe",
		// The coordinator's lease records deleted, again and again, at
		// random moments and mid-takeover (just after a token was
		// issued, before its holder fenced): DynamoDB's lease items, or
		// with bucket leases <domain>/_fence/lease.json. Writers keep
		// acquiring through fence.Acquire, whose floor makes the
		// coordinator resume above the store's highest token; a waiter
		// whose floor is older gets a token that was issued before, and
		// its fence is refused. Half the acquisitions take no fence
		// (AcquireOptions.NoFence): their holder's first commit claims
		// the token, and a commit of another holder at a token issued
		// twice is refused, as the fence would be (I10 on the store's
		// record). DynamoDB in even rounds (the quick mode), bucket
		// leases in odd ones.
		faultTTLs:  3.5,
		setup:      func(p *params) { p.noFence = 0.5 },
		coordWiped: true,
		altCoord:   spec.CoordDynamo,
		inject:     wipeCoordinator,
		bit:        wipeBit,
	},
	{
		name: "forgetful",
		// The fault proxy forgets domains' manifests on some routes, as
		// an erasure-coded MinIO whose drives came back stale does: GET
		// and HEAD 404, If-Match 404, If-None-Match: * lets the write
		// through over the object. With bucket leases it forgets lease
		// records too (alone or with the manifest): a forgotten lease
		// record is a wiped coordinator that still answers. Bucket leases
		// in even rounds (the quick mode), DynamoDB in odd ones.
		faultTTLs: 3.5,
		altCoord:  spec.CoordBucket,
		inject:    forgetful,
		bit:       forgetfulBit,
	},
	{
		name: "plain-copies",
		// Writers also write each key they commit to its plain object
		// (objstore.Options.PlainCopies), readers GET the plain objects
		// as a client that does not speak fence would, and the first
		// writer to reach its second plain-copy write stops itself just
		// before it; the suite resumes it once a newer commit's copy of
		// that key is in place, so that its write is from an older
		// commit and must be refused. The fault phase
		// adds the HTTP errors of http-errors, so that copies fail and
		// are repaired by later commits and by SyncPlain at the end.
		faultTTLs: 4,
		setup:     func(p *params) { p.plain = true },
		writers:   plainPausePoint,
		inject:    httpErrors,
		bit:       plainBit,
	},

	{
		name: "gcs-sigstop",
		// The bucket-leases run on fake-gcs-server: the sigstop fault,
		// leases in the bucket (fence's default on GCS), and every
		// writer, reader and the collector, and the suite itself,
		// through objstore/gcsstore (cloud.google.com/go/storage). The
		// record is the bucket's own: it has versioning on.
		store:     storeGCS,
		faultTTLs: 3,
		setup:     func(p *params) { p.coord = spec.CoordBucket },
		writers:   pausePoint,
		inject:    stopStubbornHolder,
		bit:       staleBit,
	},
	{
		name: "azure-sigstop",
		// The same on Azurite, through objstore/azblobstore
		// (azure-sdk-for-go). Azurite keeps no versions: the record is
		// the proxy's wire record (record_emul_test.go).
		store:     storeAzure,
		faultTTLs: 3,
		setup:     func(p *params) { p.coord = spec.CoordBucket },
		writers:   pausePoint,
		inject:    stopStubbornHolder,
		bit:       staleBit,
	},

	// Negative controls: each must be caught.
	{
		name: "control-unconditional", control: spec.BreakUnconditional,
		mustCatch: []string{"porcupine", "I1", "I2", "I4"},
		faultTTLs: 4,
		writers:   pausePoint,
		inject:    func(*run) error { return nil },
		bit:       staleBit,
	},
	{
		name: "control-412-ok", control: spec.Break412OK,
		mustCatch: []string{"porcupine", "I1", "I4"},
		faultTTLs: 4,
		writers:   pausePoint,
		inject:    func(*run) error { return nil },
		bit:       staleBit,
	},
	{
		// control-unconditional on fake-gcs-server and on Azurite, with
		// leases in the bucket as in gcs-sigstop and azure-sigstop: the
		// manifest writes go out without ifGenerationMatch (GCS) or
		// If-Match and If-None-Match (Azure).
		name: "control-unconditional-gcs", control: spec.BreakUnconditional, store: storeGCS,
		mustCatch: []string{"porcupine", "I1", "I2", "I4"},
		faultTTLs: 4,
		setup:     func(p *params) { p.coord = spec.CoordBucket },
		writers:   pausePoint,
		inject:    func(*run) error { return nil },
		bit:       staleBit,
	},
	{
		name: "control-unconditional-azure", control: spec.BreakUnconditional, store: storeAzure,
		mustCatch: []string{"porcupine", "I1", "I2", "I4"},
		faultTTLs: 4,
		setup:     func(p *params) { p.coord = spec.CoordBucket },
		writers:   pausePoint,
		inject:    func(*run) error { return nil },
		bit:       staleBit,
	},
	{
		name: "control-reissue", control: spec.BreakNoFloor,
		mustCatch: []string{"porcupine tokens", "I5"},
		faultTTLs: 4,
		inject: func(r *run) error {
			sleep(r.p.ttl)
			start := hist.Now()
			r.s.dynalite.kill()
			if err := r.s.dynalite.start(false); err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := dynamocoord.CreateTable(ctx, r.s.dyn, r.table); err != nil {
				return err
			}
			r.logf("dynalite restarted without its data, table recreated")
			r.fault("dynalite-wipe", "dynalite", start)
			return nil
		},
		bit: func(rep *report) (bool, string) { return true, "dynalite wiped" },
	},

	{
		name: "control-no-claim", control: spec.BreakNoClaim,
		// coord-wipe with every acquisition without a fence, taken
		// through a Store other than the one that commits: the first
		// commit at a token claims nothing, so when the wiped
		// coordinator issues a token twice, both holders' commits at it
		// land. Five wipes, three of them mid-takeover, and half a TTL
		// between an acquisition and its first commit, so that nearly
		// every run has a token issued twice and committed at twice.
		mustCatch:  []string{"I10"},
		faultTTLs:  5,
		setup:      func(p *params) { p.noFence = 1 },
		coordWiped: true,
		altCoord:   spec.CoordDynamo,
		writers: func(r *run, _ int, w *spec.Writer) {
			w.NoFenceWaitMillis = (r.p.ttl / 2).Milliseconds()
		},
		inject: func(r *run) error { return wipeCoordinatorTimes(r, 5) },
		bit: func(rep *report) (bool, string) {
			w := rep.Wiped
			return w.SharedTokens > 0, fmt.Sprintf("%d tokens a second holder committed at, %d issued again, %d wipes", w.SharedTokens, w.Reissued, w.Wipes)
		},
	},
	{
		name: "control-gc-unnamed", control: spec.BreakGCUnnamed,
		// The collector deletes every version the manifest does not
		// name, pending ones too; writers wait 150 ms between uploading
		// their versions (none inline) and writing the manifest, so it
		// meets them.
		mustCatch: []string{"I9", "I4"},
		faultTTLs: 2.5,
		writers: func(_ *run, _ int, w *spec.Writer) {
			w.DelayBeforeManifestMillis = 150
			w.InlineMax = -1 // pending versions are what it deletes
		},
		inject: func(*run) error { return nil },
		bit: func(rep *report) (bool, string) {
			return rep.GC.Deleted > 0, fmt.Sprintf("%d objects deleted", rep.GC.Deleted)
		},
	},
	{
		name: "control-plain-blind", control: spec.BreakPlainBlind,
		// Plain-copy writes carry no If-Match: the older copy that the
		// paused writer sends after a newer one lands over it, and the
		// writer stops again right after, before its own check repairs
		// it.
		mustCatch: []string{"I12"},
		faultTTLs: 4,
		setup:     func(p *params) { p.plain = true },
		writers:   plainPausePoint,
		inject:    func(*run) error { return nil },
		bit:       plainBlindBit,
	},
	{
		name: "control-merge-drop-entry", control: spec.BreakMergeDropEntry,
		// The group-commit workload, with a merge that loses a commit:
		// every manifest write that carries more than one new commit
		// goes out without the first one's log entry (the writer's
		// backend wrapper re-encodes it), though the store acknowledges
		// that commit. No unknown outcomes are injected, so that every
		// dropped commit is acknowledged.
		mustCatch: []string{"I4"},
		faultTTLs: 2.5,
		writers: func(r *run, i int, w *spec.Writer) {
			groupWriters(r, i, w)
			w.UnknownEvery = 0
		},
		inject: func(*run) error { return nil },
		bit: func(rep *report) (bool, string) {
			n := rep.ManifestPuts["merge_entries_dropped"]
			return n > 0, fmt.Sprintf("%d merged writes applied without a commit's log entry, of %d merged writes sent", n, rep.ManifestPuts["merged_writes"])
		},
	},
	{
		name: "control-retry-fresh-id", control: spec.BreakRetryFreshID,
		// Writers "retry" a commit whose outcome was unknown by
		// committing it again under a fresh commit id; every writer
		// makes every third data commit end unknown after it applied.
		mustCatch: []string{"I11", "X2", "porcupine", "I4"},
		faultTTLs: 2.5,
		writers: func(_ *run, _ int, w *spec.Writer) {
			w.UnknownEvery = 3
		},
		inject: func(*run) error { return nil },
		bit: func(rep *report) (bool, string) {
			return rep.ManifestPuts["unknown_injected"] > 0, fmt.Sprintf("%d unknown outcomes injected, retries %s", rep.ManifestPuts["unknown_injected"], outcomesText(rep.Retries))
		},
	},
}

// groupWriters makes every writer commit from 8 goroutines under each
// lease, 3 to 10 commits each.
func groupWriters(_ *run, _ int, w *spec.Writer) {
	w.Committers, w.CommitsMin, w.CommitsMax = 8, 3, 10
}

// groupCommitFault lets 15% of the writers' PUTs apply and answers them
// 503 while it stops a stubborn lease holder past its TTL (with its
// goroutines mid-commit) and resumes it once its domain was taken over.
func groupCommitFault(r *run) error {
	start := hist.Now()
	cfg := &spec.HTTPFaults{Applied503: 0.15}
	var routes []string
	for i := range r.p.writers {
		routes = append(routes, fmt.Sprintf("s3-%d", i))
	}
	for _, name := range routes {
		if _, err := r.proxy.setHTTP(name, cfg); err != nil {
			return err
		}
	}
	r.logf("HTTP faults on the writers' S3 routes: %+v", *cfg)
	err := stopStubbornHolder(r)
	if rest := 5*r.p.ttl/2 - time.Duration(hist.Now()-start); rest > 0 {
		sleep(rest)
	}
	for _, name := range routes {
		if _, herr := r.proxy.setHTTP(name, &spec.HTTPFaults{}); herr != nil && err == nil {
			err = herr
		}
	}
	r.fault("http-applied-503", "the writers' S3 routes", start)
	return err
}

// httpErrors answers 503 and 500 on every S3 route for 2.5 TTLs, and
// replaces the reply of some writes that applied with 503.
func httpErrors(r *run) error {
	start := hist.Now()
	cfg := &spec.HTTPFaults{Refuse503: 0.05, Refuse500: 0.03, Applied503: 0.2}
	for _, name := range r.storeRoutes() {
		if _, err := r.proxy.setHTTP(name, cfg); err != nil {
			return err
		}
	}
	r.logf("HTTP faults on every S3 route, the readers' too: %+v", *cfg)
	sleep(5 * r.p.ttl / 2)
	for _, name := range r.storeRoutes() {
		if _, err := r.proxy.setHTTP(name, &spec.HTTPFaults{}); err != nil {
			return err
		}
	}
	r.fault("http-503-500", "every S3 route", start)
	return nil
}

// wipeCoordinator deletes lease records three times: twice just after a
// token was issued (mid-takeover: its holder has not fenced yet), or at
// random if no issue comes within a TTL, and once at a random moment.
func wipeCoordinator(r *run) error { return wipeCoordinatorTimes(r, 3) }

// wipeCoordinatorTimes is wipeCoordinator with n wipes, every other one
// mid-takeover.
func wipeCoordinatorTimes(r *run, n int) error {
	for i := range n {
		domain, why := "", "at random"
		if i%2 == 0 {
			if is, ok := r.waitIssue(r.p.ttl); ok {
				domain, why = is.domain, fmt.Sprintf("mid-takeover: token %d issued to %s %.0f ms before", is.token, is.client, float64(hist.Now()-is.at)/1e6)
			}
		} else {
			sleep(time.Duration(r.rng.IntN(int(r.p.ttl/time.Millisecond/2))) * time.Millisecond)
		}
		if domain == "" {
			domain = r.p.domains[r.rng.IntN(len(r.p.domains))]
		}
		if err := r.wipeLease(domain, why); err != nil {
			return err
		}
		sleep(r.p.ttl / 3)
	}
	return nil
}

func wipeBit(rep *report) (bool, string) {
	w := rep.Wiped
	return w.Wipes >= 2 && w.AcquiredAfter > 0, fmt.Sprintf("%d wipes, %d acquisitions after a wipe, %d tokens issued again, %d fences refused as claimed", w.Wipes, w.AcquiredAfter, w.Reissued, w.Claimed)
}

// forgetful makes the proxy forget a domain's manifest on a random part
// of the S3 routes, three times for half a TTL to a TTL. With bucket
// leases it forgets the manifest and the lease record the first time,
// the lease record alone the second, and either or both the third.
func forgetful(r *run) error {
	routes := r.storeRoutes()
	for i := range 3 {
		d := r.p.domains[r.rng.IntN(len(r.p.domains))]
		manifest, lease := format.ManifestKey(d), rules.SystemKey(d, bucketlease.RecordName)
		keys := []string{manifest}
		if r.p.coord == spec.CoordBucket {
			switch {
			case i == 0:
				keys = []string{manifest, lease}
			case i == 1:
				keys = []string{lease}
			default:
				keys = [][]string{{manifest}, {lease}, {manifest, lease}}[r.rng.IntN(3)]
			}
		}
		var on []string
		for i, name := range routes {
			// Every route with probability 0.6, and at least one writer;
			// the readers' route whenever the manifest is forgotten (a
			// stale drive answers every client), since the readers read
			// every domain all the time and writers may not come near
			// it within the window.
			forced := name == readerRoute && slices.Contains(keys, manifest)
			if forced || r.rng.Float64() < 0.6 || (i == len(routes)-1 && len(on) == 0) {
				on = append(on, name)
			}
		}
		start := hist.Now()
		for _, name := range on {
			if _, err := r.proxy.setHTTP(name, &spec.HTTPFaults{Forget: keys}); err != nil {
				return err
			}
		}
		r.logf("forgetting %v on routes %v", keys, on)
		sleep(r.p.ttl/2 + time.Duration(r.rng.IntN(int(r.p.ttl/time.Millisecond/2)))*time.Millisecond)
		for _, name := range on {
			if _, err := r.proxy.setHTTP(name, &spec.HTTPFaults{}); err != nil {
				return err
			}
		}
		r.fault("forgetful", fmt.Sprintf("%v on %d routes", keys, len(on)), start)
		sleep(r.p.ttl / 4)
	}
	return nil
}

// forgetfulBit: stores met a forgotten object and failed closed on it:
// an operation refused with ErrCorruptManifest, or (a lease record
// forgotten) a fence refused because the coordinator never issued, or
// issued a newer, token than the holder's, or because the token was
// claimed by another commit.
func forgetfulBit(rep *report) (bool, string) {
	h := rep.HTTPFaults
	return h.ForgotReads > 0 && rep.FailedClosed+rep.FencesRefused > 0, fmt.Sprintf("%d reads and %d If-Match writes answered 404, %d If-None-Match writes let through; %d operations failed closed, %d fences refused (a token not issued, older than issued, or claimed)",
		h.ForgotReads, h.ForgotIfMatch, h.Overwrote, rep.FailedClosed, rep.FencesRefused)
}

func pendingOps(rep *report) int {
	n := 0
	for _, m := range rep.Ops {
		n += m["pending"]
	}
	return n
}

func kindByName(name string) *kind {
	for _, k := range kinds {
		if k.name == name {
			return k
		}
	}
	return nil
}
