package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// recorder records the tokens a driver issues to the probe, as the
// writers' own wrapper does.
type recorder struct {
	coord.Driver
	c    *hist.Client
	last uint64 // the last token issued
}

func (r *recorder) TryAcquire(ctx context.Context, req coord.Request) (coord.Lease, error) {
	rec := r.c.Start(hist.OpIssue, hist.Input{Domain: req.Domain, Floor: req.Floor})
	l, err := r.Driver.TryAcquire(ctx, req)
	switch {
	case err == nil:
		r.last = l.Token
		r.c.End(rec, hist.OK, hist.Output{Token: l.Token}, nil)
	case !errors.Is(err, coord.ErrLeaseHeld):
		r.c.End(rec, hist.Unknown, hist.Output{}, err)
	}
	return l, err
}

// recovery is I8's measurement: how long a fresh writer took to acquire
// and commit in each domain once the faults had healed and the workload
// stopped.
type recovery struct {
	BoundSeconds         float64            `json:"bound_seconds"`
	ProbeSeconds         map[string]float64 `json:"probe_seconds"` // per domain
	MaxSeconds           float64            `json:"max_seconds"`
	FirstCommitAfterHeal map[string]float64 `json:"first_commit_after_heal_seconds,omitempty"` // per domain, from the workload
}

// probeI8 acquires (waiting) and commits in every domain as a fresh
// writer, recorded in the history as client probe-<domain>.
func (r *run) probeI8() (recovery, []violation) {
	rec := recovery{BoundSeconds: r.p.i8Bound.Seconds(), ProbeSeconds: map[string]float64{}}
	w, err := hist.Create(filepath.Join(r.dir, "hist-probe.jsonl"))
	if err != nil {
		r.t.Fatal(err)
	}
	defer w.Close()
	var mu sync.Mutex
	var vs []violation
	var wg sync.WaitGroup
	for _, d := range r.p.domains {
		wg.Go(func() {
			c := &hist.Client{Name: "probe-" + d, W: w}
			// Without plain copies even in a plain kind: the final
			// SyncPlain must then bring the probe's key up to date, as
			// it does for a domain whose plain copies are turned on late.
			store := objstore.New(r.directBackend(), &objstore.Options{Holder: c.Name, Issuer: fence.Issuer(r.directCoord())})
			co := &recorder{Driver: r.directCoord().Driver(), c: c}
			ctx, cancel := context.WithTimeout(context.Background(), r.p.i8Bound)
			defer cancel()
			start := time.Now()
			err := probeOnce(ctx, c, store, co, d, r.p.keys, r.p.ttl)
			took := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			rec.ProbeSeconds[d] = took.Seconds()
			rec.MaxSeconds = max(rec.MaxSeconds, took.Seconds())
			if err != nil {
				vs = append(vs, violation{"I8", fmt.Sprintf("%s: a fresh writer did not acquire and commit within %s: %v", d, r.p.i8Bound, err)})
			}
		})
	}
	wg.Wait()
	return rec, vs
}

func probeOnce(ctx context.Context, c *hist.Client, store *objstore.Store, co *recorder, domain string, keys []string, ttl time.Duration) error {
	id := c.NextID()
	rec := c.Begin(id, hist.OpAcquire, hist.Input{Domain: domain})
	sess, err := fence.Acquire(ctx, store, coord.New(co), domain, &fence.AcquireOptions{Holder: c.Name, TTL: ttl, Wait: true})
	if err != nil {
		out := hist.Output{Token: co.last}
		outcome := hist.Fail
		var ue *objstore.UnknownOutcomeError
		var fe *objstore.FencedError
		switch {
		case co.last == 0:
		case errors.As(err, &fe):
			outcome, out.Fence = hist.Fenced, hist.Fenced
			out.Highest, out.ClaimedBy, out.Issued = fe.Highest, fe.ClaimedBy, fe.Issued
		case errors.As(err, &ue):
			outcome, out.Fence, out.CommitID = hist.Unknown, hist.Unknown, ue.CommitID
		default:
			out.Fence = hist.Fail
		}
		c.End(rec, outcome, out, err)
		return err
	}
	l := sess.Orphan() // the probe drives the lease by hand
	c.End(rec, hist.OK, hist.Output{Token: l.Token, Fence: hist.OK}, nil)
	defer co.Release(context.WithoutCancel(ctx), l)
	id = c.NextID()
	tag := c.Tag(id)
	puts := map[string]string{keys[0]: tag + ":" + keys[0] + ":probe"}
	rec = c.Begin(id, hist.OpCommit, hist.Input{Domain: domain, Token: l.Token, Puts: puts, Tag: tag})
	cm, err := store.Commit(ctx, domain, l.Token, []objstore.Change{objstore.PutBytes(keys[0], []byte(puts[keys[0]]))}, &objstore.CommitOptions{Holder: tag})
	var ue *objstore.UnknownOutcomeError
	var fe *objstore.FencedError
	switch {
	case err == nil, errors.Is(err, objstore.ErrPlainCopy):
		// A commit whose plain copies failed landed.
		c.End(rec, hist.OK, hist.Output{Seq: cm.Seq, Highest: cm.Highest, CommitID: cm.ID, Recovered: cm.Recovered, PlainFailed: err != nil}, err)
		if err != nil {
			return nil
		}
	case errors.As(err, &fe):
		c.End(rec, hist.Fenced, hist.Output{Highest: fe.Highest, Issued: fe.Issued}, err)
	case errors.As(err, &ue):
		c.End(rec, hist.Unknown, hist.Output{CommitID: ue.CommitID}, err)
	default:
		c.End(rec, hist.Fail, hist.Output{}, err)
	}
	return err
}

// checkI7 replaces the manifest of domain with a corrupt one, an empty
// one, one of an unknown format, and none at all (its versions remain),
// and checks each time that reading the highest token, taking a
// snapshot, committing and acquiring all fail closed with
// ErrCorruptManifest, and that nothing was written over the manifest.
// It runs after the store's record was read, at the end of a run.
func (r *run) checkI7(ctx context.Context, domain string) (int, []violation) {
	var vs []violation
	key := format.ManifestKey(domain)
	b := r.directBackend()
	cases := []struct {
		name string
		body []byte // nil: delete the manifest
	}{
		{"corrupt", []byte(`{"format":"fence.manifest/v1","domain":`)},
		{"empty", []byte{}},
		{"unknown format", []byte(`{"format":"fence.manifest/v99","domain":"` + domain + `","highest_token":7,"seq":3}`)},
		{"missing", nil},
	}
	checked := 0
	for _, tc := range cases {
		var err error
		if tc.body == nil {
			err = b.Delete(ctx, key)
		} else {
			_, err = b.Put(ctx, key, bytes.NewReader(tc.body), int64(len(tc.body)), driver.PutOptions{})
		}
		if err != nil {
			r.t.Fatalf("I7: make the manifest %s: %v", tc.name, err)
		}
		fail := func(what string, err error) {
			checked++
			if !errors.Is(err, objstore.ErrCorruptManifest) {
				vs = append(vs, violation{"I7", fmt.Sprintf("%s manifest: %s returned %v, want an error matching ErrCorruptManifest", tc.name, what, err)})
			}
		}
		store := objstore.New(r.directBackend(), &objstore.Options{Holder: "i7"}) // no cache
		h, err := store.Highest(ctx, domain)
		if err == nil {
			err = fmt.Errorf("highest token %d, no error", h)
		}
		fail("Highest", err)
		_, err = store.Snapshot(ctx, domain)
		fail("Snapshot", err)
		_, err = store.Commit(ctx, domain, objstore.MaxToken-1, []objstore.Change{objstore.PutBytes(r.p.keys[0], []byte("i7"))}, nil)
		fail("Commit", err)
		_, err = fence.Acquire(ctx, store, r.directCoord(), domain, &fence.AcquireOptions{Holder: "i7", TTL: r.p.ttl})
		fail("fence.Acquire", err)
		// Nothing was written over it.
		out, _, err := b.Get(ctx, key, driver.GetOptions{})
		switch {
		case tc.body == nil && err == nil:
			out.Close()
			vs = append(vs, violation{"I7", "missing manifest: something created one"})
		case tc.body == nil:
			if !errors.Is(err, driver.ErrNotFound) {
				r.t.Fatalf("I7: read the manifest back: %v", err)
			}
		case err != nil:
			r.t.Fatalf("I7: read the manifest back: %v", err)
		default:
			data, _ := io.ReadAll(out)
			out.Close()
			if !bytes.Equal(data, tc.body) {
				vs = append(vs, violation{"I7", fmt.Sprintf("%s manifest: it was overwritten with %.200q", tc.name, data)})
			}
		}
	}
	return checked, vs
}
