package objstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

// Benchmarks of the hot paths on the memory backend: they measure what
// fence itself costs in CPU and allocations, with no network. The
// side-by-side comparison with plain S3 calls is the bench package
// (fence bench).

const benchDomain = "bench/domain"

// benchStore returns a Store on a fresh memory backend, probed and with
// domain created, so that what follows is warm.
func benchStore(b *testing.B) *objstore.Store {
	b.Helper()
	s := objstore.New(memstore.New(), nil)
	if _, err := s.Put(b.Context(), benchDomain, "warm", 1, bytes.NewReader([]byte("x")), 1); err != nil {
		b.Fatal(err)
	}
	return s
}

// fill commits n keys of 16 bytes to domain, 1,000 per commit.
func fill(b *testing.B, s *objstore.Store, domain string, n int) {
	b.Helper()
	for i := 0; i < n; i += 1000 {
		var changes []objstore.Change
		for k := i; k < min(i+1000, n); k++ {
			changes = append(changes, objstore.PutBytes(fmt.Sprintf("key-%06d", k), []byte(fmt.Sprintf("value-%09d", k))))
		}
		if _, err := s.Commit(b.Context(), domain, 1, changes, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPut1KiB is a warm one-key commit of 1 KiB: version upload and
// manifest write, from the cached manifest.
func BenchmarkPut1KiB(b *testing.B) {
	s := benchStore(b)
	data := bytes.Repeat([]byte{'a'}, 1024)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.Put(b.Context(), benchDomain, "k", 1, bytes.NewReader(data), int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSmallPutCost is objstoretest.SmallPutCost on the memory
// backend: a warm fenced put of 1 KiB against memstore's own
// unconditional Put, interleaved, with CPU and allocations per call of
// each. With no network and no SDK, the fenced side is what fence itself
// costs; objstore/s3store and objstore/miniostore run the same against
// MinIO and their SDKs.
func BenchmarkSmallPutCost(b *testing.B) {
	mb := memstore.New()
	objstoretest.SmallPutCost(b, mb, func(ctx context.Context, key string, data []byte) error {
		_, err := mb.Put(ctx, key, bytes.NewReader(data), int64(len(data)), driver.PutOptions{})
		return err
	})
}

// BenchmarkCommitInlineCost is objstoretest.CommitInlineCost on the
// memory backend: a warm commit of 100 values of 1 KiB, all inline,
// against memstore's own conditional Put of the manifest's bytes (the
// commit's floor), interleaved, with CPU and allocations per call of
// each. With no network and no SDK, the difference is what fence itself
// costs; objstore/s3store runs the same against MinIO and its SDK.
func BenchmarkCommitInlineCost(b *testing.B) {
	mb := memstore.New()
	objstoretest.CommitInlineCost(b, mb, func(ctx context.Context, key string, data []byte, etag string) (string, error) {
		var mode driver.PutMode = driver.Create{}
		if etag != "" {
			mode = driver.Update{ETag: etag}
		}
		info, err := mb.Put(ctx, key, bytes.NewReader(data), int64(len(data)), driver.PutOptions{Mode: mode})
		return info.ETag, err
	})
}

// BenchmarkCommit100Keys is an atomic commit of 100 keys of 1 KiB.
func BenchmarkCommit100Keys(b *testing.B) {
	s := benchStore(b)
	data := bytes.Repeat([]byte{'a'}, 1024)
	keys := make([]string, 100)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%03d", i)
	}
	changes := make([]objstore.Change, len(keys))
	b.ReportAllocs()
	b.SetBytes(int64(len(keys) * len(data)))
	for b.Loop() {
		for i, k := range keys {
			changes[i] = objstore.PutBytes(k, data)
		}
		if _, err := s.Commit(b.Context(), benchDomain, 1, changes, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet1KiB is a warm read of a 1 KiB key: manifest revalidation,
// the version's bytes, verification.
func BenchmarkGet1KiB(b *testing.B) {
	s := benchStore(b)
	data := bytes.Repeat([]byte{'a'}, 1024)
	if _, err := s.Put(b.Context(), benchDomain, "k", 1, bytes.NewReader(data), int64(len(data))); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		readToEnd(b, s, "k")
	}
}

// readToEnd reads key of benchDomain through s to its end, verified.
func readToEnd(b *testing.B, s *objstore.Store, key string) {
	r, err := s.Get(b.Context(), benchDomain, key)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if _, err := io.Copy(io.Discard, r); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkGet64MiB is a warm read of a 64 MiB version object from
// memory: the read ahead and the verification, with no network, checked
// by its CRCs (the default) and by SHA-256 as well (VerifySHA256, and what
// every read cost before entries recorded CRCs).
func BenchmarkGet64MiB(b *testing.B) {
	mem := memstore.New()
	data := bytes.Repeat([]byte("0123456789abcdef"), 4<<20)
	if _, err := objstore.New(mem, nil).Put(b.Context(), benchDomain, "k", 1, bytes.NewReader(data), int64(len(data))); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		sha  bool
	}{{"crcs", false}, {"sha256", true}} {
		b.Run(tc.name, func(b *testing.B) {
			s := objstore.New(mem, &objstore.Options{VerifySHA256: tc.sha})
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				readToEnd(b, s, "k")
			}
		})
	}
}

// BenchmarkSnapshot pins the current manifest of a domain of 100 keys.
func BenchmarkSnapshot(b *testing.B) {
	s := benchStore(b)
	fill(b, s, benchDomain, 100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Snapshot(b.Context(), benchDomain); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotRead reads one 1 KiB key through a pinned snapshot:
// no manifest traffic, only the version.
func BenchmarkSnapshotRead(b *testing.B) {
	s := benchStore(b)
	data := bytes.Repeat([]byte{'a'}, 1024)
	if _, err := s.Put(b.Context(), benchDomain, "k", 1, bytes.NewReader(data), int64(len(data))); err != nil {
		b.Fatal(err)
	}
	sn, err := s.Snapshot(b.Context(), benchDomain)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := sn.ReadAll(b.Context(), "k"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitLiveKeys is a warm one-key commit of 1 KiB into a domain
// holding 10, 1,000 and 10,000 live keys: how a commit's cost grows with
// the domain.
func BenchmarkCommitLiveKeys(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := benchStore(b)
			fill(b, s, benchDomain, n)
			data := bytes.Repeat([]byte{'a'}, 1024)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Put(b.Context(), benchDomain, "hot", 1, bytes.NewReader(data), int64(len(data))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// manifests10k returns the manifests of a domain of 10,000 live keys in
// both formats: v1, every key in the manifest, as older data has it (and
// as migration decodes it once); and what the Store writes today.
func manifests10k(b *testing.B) map[string]*format.Manifest {
	b.Helper()
	v1 := &format.Manifest{Format: format.ManifestV1, Domain: benchDomain, Highest: 1, Seq: 1, Keys: map[string]format.Entry{}}
	sum := sha256.Sum256([]byte("value"))
	for k := range 10000 {
		key := fmt.Sprintf("key-%06d", k)
		v1.Keys[key] = format.Entry{Version: format.VersionKey(benchDomain, key, 1, "0123456789abcdef0123456789abcdef"), Size: 5, SHA256: hex.EncodeToString(sum[:]), Token: 1, Committed: time.Unix(1e9, 0).UTC()}
	}
	v1.Last = format.LogEntry{Seq: 1, ID: "0123456789abcdef0123456789abcdef", Token: 1, Holder: "bench", Time: time.Unix(1e9, 0).UTC(), Puts: 10000}
	v1.Log = []format.LogEntry{v1.Last}

	s := benchStore(b)
	fill(b, s, benchDomain, 10000)
	current, err := format.ReadManifest(context.WithoutCancel(b.Context()), s.Backend(), benchDomain)
	if err != nil {
		b.Fatal(err)
	}
	return map[string]*format.Manifest{"v1": v1, "current": current}
}

// BenchmarkEncodeManifest10k encodes the manifest of a domain of 10,000
// live keys.
func BenchmarkEncodeManifest10k(b *testing.B) {
	ms := manifests10k(b)
	for _, name := range []string{"v1", "current"} {
		b.Run(name, func(b *testing.B) {
			m := ms[name]
			data, err := format.Encode(m)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := format.Encode(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeManifest10k decodes and checks the manifest of a domain
// of 10,000 live keys.
func BenchmarkDecodeManifest10k(b *testing.B) {
	ms := manifests10k(b)
	key := format.ManifestKey(benchDomain)
	for _, name := range []string{"v1", "current"} {
		b.Run(name, func(b *testing.B) {
			data, err := format.Encode(ms[name])
			if err != nil {
				b.Fatal(err)
			}
			if _, err := format.Decode(benchDomain, key, data); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := format.Decode(benchDomain, key, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkColdGet1KiB reads a 1 KiB key, kept inline, through a new
// Store each time, as a reader in a new process does (fence bench's "get
// 1 KiB, new Store each time" row): one GET of the manifest, its decode
// and checks, the Store's construction, and the value's verification.
// The key was written 64 times (the default LogLimit), so the manifest
// holds a full log, as a domain in use does.
func BenchmarkColdGet1KiB(b *testing.B) {
	mb := memstore.New()
	data := bytes.Repeat([]byte{'a'}, 1024)
	w := objstore.New(mb, nil)
	for range 64 {
		if _, err := w.Put(b.Context(), benchDomain, "k", 1, bytes.NewReader(data), int64(len(data))); err != nil {
			b.Fatal(err)
		}
	}
	info, err := mb.Head(b.Context(), format.ManifestKey(benchDomain))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r, err := objstore.New(mb, nil).Get(b.Context(), benchDomain, "k")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
	b.ReportMetric(float64(info.Size), "manifest-B")
}

// BenchmarkListPages100k pages through a domain of 100,000 keys (kept in
// shards) with Store.ListPage, 1,000 keys a page: one op is the whole
// listing of 100 pages. The first page merges the shards and sorts the
// keys; the others start with a binary search (list_memo.go).
func BenchmarkListPages100k(b *testing.B) {
	ctx := context.Background()
	s := objstore.New(memstore.New(), &objstore.Options{InlineMax: -1, SkipProbe: true})
	const n, batch = 100000, 5000
	for i := 0; i < n; i += batch {
		changes := make([]objstore.Change, batch)
		for j := range changes {
			changes[j] = objstore.PutBytes(fmt.Sprintf("k/%07d", i+j), []byte("x"))
		}
		if _, err := s.Commit(ctx, benchDomain, 1, changes, nil); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		opts, pages := &objstore.ListOptions{Limit: 1000}, 0
		for {
			p, err := s.ListPage(ctx, benchDomain, opts)
			if err != nil {
				b.Fatal(err)
			}
			pages++
			if p.Next == "" {
				break
			}
			opts.After = p.Next
		}
		if pages != n/1000 {
			b.Fatalf("%d pages, want %d", pages, n/1000)
		}
	}
}
