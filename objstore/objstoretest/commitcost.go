package objstoretest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/cost"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// CommitInlineKeys and CommitInlineSize are the shape of
// CommitInlineCost's commit: fence bench's "commit 100 x 1 KiB" row,
// every value kept in the manifest.
const (
	CommitInlineKeys = 100
	CommitInlineSize = 1024
)

// CommitInlineCost compares what the client spends (CPU, heap bytes and
// allocations, internal/cost), and the wall time, on a warm fenced
// commit of CommitInlineKeys values of CommitInlineSize bytes that the
// domain already holds (objstore.Store.Commit on backend, every value
// inline), with the commit's floor (fence bench): one conditional PUT
// of the manifest's bytes, as the commit left them, to a scratch key
// through the backend's own SDK client, floorPut (If-Match on etag, or
// If-None-Match: * when etag is ""; it returns the new ETag). The two
// are interleaved in one loop. It reports figures and asserts nothing.
func CommitInlineCost(b *testing.B, backend driver.Backend, floorPut func(ctx context.Context, key string, data []byte, etag string) (string, error)) {
	ctx := b.Context()
	s := objstore.New(backend, nil)
	var r [6]byte
	rand.Read(r[:])
	domain := "commitcost-" + hex.EncodeToString(r[:])
	data := make([]byte, CommitInlineSize)
	rand.Read(data)
	changes := make([]objstore.Change, CommitInlineKeys)
	fenced := func() error {
		for i := range changes {
			changes[i] = objstore.PutBytes(fmt.Sprintf("k%05d", i), data)
		}
		_, err := s.Commit(ctx, domain, 1, changes, nil)
		return err
	}
	for range 64 { // the default LogLimit: the log is full, as in a long-running job
		if err := fenced(); err != nil {
			b.Fatal(err)
		}
	}
	rc, _, err := backend.Get(ctx, format.ManifestKey(domain), driver.GetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	manifest, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		b.Fatal(err)
	}
	floorKey, etag := domain+"-floor/manifest.json", ""
	floor := func() error {
		next, err := floorPut(ctx, floorKey, manifest, etag)
		etag = next
		return err
	}
	if err := floor(); err != nil {
		b.Fatal(err)
	}
	var wall [2]time.Duration
	timed := func(i int, f func() error) func() error {
		return func() error {
			t0 := time.Now()
			err := f()
			wall[i] += time.Since(t0)
			return err
		}
	}
	n := 0
	cost.Pair(b, cost.Side{Name: "fence", Call: timed(0, func() error { n++; return fenced() })}, cost.Side{Name: "floor", Call: timed(1, floor)})
	if n > 0 {
		b.ReportMetric(float64(wall[0])/float64(n), "fence-wall-ns/op")
		b.ReportMetric(float64(wall[1])/float64(n), "floor-wall-ns/op")
		b.ReportMetric(float64(len(manifest)), "manifest-B")
	}
}
