package faults

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/objstore/s3store"
)

// TestFaults runs every fault kind and every negative control once (the
// quick mode), or, with FENCE_SOAK set, round after round until that much
// time has passed (the long mode). See docs/faults.md.
func TestFaults(t *testing.T) {
	env := loadEnv(t)
	selected := kinds
	if len(env.kinds) > 0 {
		selected = nil
		for _, name := range env.kinds {
			k := kindByName(name)
			if k == nil {
				t.Fatalf("%s: unknown kind %q", envKinds, name)
			}
			selected = append(selected, k)
		}
	}
	t.Logf("suite seed %d (replay: %s=%d)", env.seed, envSeed, env.seed)
	s := newSuite(t, env)

	started := time.Now()
	var reports []*report
	for round := env.round; ; round++ {
		for _, k := range selected {
			t.Run(k.name, func(t *testing.T) {
				rep := runOne(t, s, k, round)
				if onlyNoBite(rep) {
					// A run whose fault did not bite says nothing, of
					// fence or of the checks (a loaded machine can delay
					// a pause past the run; a forgotten object can go
					// unread): run it once more, with other seeds, and
					// judge that run.
					t.Logf("%s: its fault did not bite (%s); running it again with other seeds", k.name, rep.BitWhy)
					rep = runOne(t, s, k, round+1000)
				}
				reports = append(reports, rep)
				t.Log("\n" + rep.summary())
				switch rep.Verdict {
				case "missed":
					t.Errorf("negative control %s went undetected: the checks did not catch a deliberately broken variant (%s)", k.name, rep.Replay)
				case "fail":
					t.Errorf("%s failed; artifacts in %s; replay: %s", k.name, rep.Artifacts, rep.Replay)
				}
			})
		}
		if env.soak == 0 || time.Since(started) > env.soak {
			break
		}
	}
	tot := sumUp(reports, env.seed, time.Since(started))
	t.Log("\n" + tot.text())
	if err := tot.save(s.out); err != nil {
		t.Errorf("writing the suite's totals: %v", err)
	} else {
		t.Logf("suite totals in %s", s.out)
	}
	// Each kind has its own bite criterion; across every kind, stale
	// holders must also have appeared. A replay of one kind (some never
	// make a stale holder: minio-restart, http-errors) is judged by its
	// own criterion only.
	if len(env.kinds) == 0 && tot.Staleness.Windows == 0 && len(reports) > 0 {
		t.Errorf("no stale-holder window in any run: the faults did not bite")
	}
}

// onlyNoBite says whether rep's run failed (or its control was missed)
// for no reason but that its fault did not bite: no check caught
// anything, no stale commit was accepted and no problem was met.
func onlyNoBite(rep *report) bool {
	if rep.Bit {
		return false
	}
	if rep.Control {
		return rep.Verdict == "missed"
	}
	for _, in := range rep.Invariants {
		if in.Violations > 0 {
			return false
		}
	}
	for _, v := range rep.Porcupine {
		if v.Result != "ok" {
			return false
		}
	}
	return rep.Verdict == "fail" && len(rep.Problems) == 0 && rep.Staleness.CommitsAccepted == 0
}

// runOne runs kind k once.
func runOne(t *testing.T, s *suite, k *kind, round int) *report {
	needStore(t, s.env, k.store)
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%d", s.env.seed, k.name, round)
	seed := h.Sum64() >> 1
	p := params{
		kind: k, seed: seed, store: k.store, coord: spec.CoordDynamo,
		writers: 6, readers: 2,
		domains:   []string{"d0", "d1/nested", "d2"},
		keys:      []string{"k0", "k1", "dir/k2"},
		ttl:       2 * time.Second,
		opTimeout: 8 * time.Second,
		settle:    1500 * time.Millisecond,
	}
	p.faultFor = time.Duration(k.faultTTLs * float64(p.ttl))
	p.i8Bound = 3*p.ttl + 30*time.Second
	if s.env.soak > 0 {
		// Long mode: longer runs, so that faults repeat within a run.
		p.faultFor *= 4
	}
	if k.altCoord != "" {
		p.coord = k.altCoord
		if round%2 == 1 {
			p.coord = map[string]string{spec.CoordDynamo: spec.CoordBucket, spec.CoordBucket: spec.CoordDynamo}[k.altCoord]
		}
	}
	if k.setup != nil {
		k.setup(&p)
	}
	// Forgotten lease records in the bucket wipe the coordinator too.
	p.coordWiped = k.coordWiped || (k.name == "forgetful" && p.coord == spec.CoordBucket)
	var rnd [4]byte
	_, _ = crand.Read(rnd[:])
	name := strings.ReplaceAll(k.name, "_", "-")
	r := &run{
		t: t, s: s, p: p, round: round,
		rng:         rand.New(rand.NewPCG(seed, 1)),
		dir:         t.TempDir(),
		bucket:      fmt.Sprintf("faults-%s-%s", name, hex.EncodeToString(rnd[:])),
		table:       fmt.Sprintf("faults-%s-%s", name, hex.EncodeToString(rnd[:])),
		stoppedByUs: map[int]bool{},
		start:       hist.Now(),
	}
	t.Logf("run %s: seed %d", k.name, seed)
	return r.execute()
}

// newSuite builds the suite's processes and starts the servers it
// kills and restarts.
func newSuite(t *testing.T, env environment) *suite {
	dir := t.TempDir()
	if env.keep {
		// Keep the servers' data and logs too.
		var err error
		if dir, err = os.MkdirTemp(env.out, "fence-faults-servers-"); err != nil {
			t.Fatal(err)
		}
		t.Logf("servers' data and logs kept in %s", dir)
	}
	s := &suite{env: env, dir: dir}
	s.bin = buildFaultbin(t, dir)
	s.minio, s.dynalite = startServers(t, env, dir)
	s.out = filepath.Join(env.out, fmt.Sprintf("fence-faults-%d", env.seed))
	ctx := context.Background()
	b, err := s3store.Open(ctx, "unused", "", &s3store.Options{Endpoint: s.minio.url(), Region: "us-east-1", PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	s.s3 = b.Client()
	s.dyn, err = dynamocoord.NewClient(ctx, &dynamocoord.OpenOptions{Endpoint: s.dynalite.url(), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
