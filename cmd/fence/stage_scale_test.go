package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/objstore"
)

// The staged-writes scale test: stageWorkers processes of the fence
// binary ('fence stage --dir') stage stageValues values (1 KiB to 8 MiB)
// under one token, then one 'fence commit' publishes all their receipts.
const (
	stageWorkers = 16
	stageValues  = 10000
)

// stageSize is the size of value i: a few large ones (two of 8 MiB, four
// of 1 MiB), the rest 1 to 2 KiB, about 35 MiB in all.
func stageSize(i int) int {
	switch {
	case i < 2:
		return 8 << 20
	case i < 6:
		return 1 << 20
	}
	return 1024 + i%1024
}

// stageTree writes the values into one directory per worker and returns
// the root and each key's SHA-256.
func stageTree(t *testing.T) (string, map[string][32]byte) {
	t.Helper()
	root := t.TempDir()
	want := make(map[string][32]byte, stageValues)
	rng := rand.NewChaCha8([32]byte{7})
	for i := range stageValues {
		w := i % stageWorkers
		name := filepath.Join(root, fmt.Sprintf("w%02d", w), fmt.Sprintf("v%05d", i))
		if i < stageWorkers {
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		data := make([]byte, stageSize(i))
		rng.Read(data)
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want[fmt.Sprintf("out/w%02d/v%05d", w, i)] = sha256.Sum256(data)
	}
	return root, want
}

// TestStageScaleFile and TestServersStageScaleMinIO: 16 worker processes
// stage 10,000 values; a reader sees none of them before the one commit
// and all of them, byte for byte, after it.
func TestStageScaleFile(t *testing.T) {
	c := newCLI(t)
	testStageScale(t, c, c.store)
}

func TestServersStageScaleMinIO(t *testing.T) {
	s3ep, _ := endpoints(t, true, false)
	bucket := unique("fence-stage-")
	c := newCLI(t)
	c.store = "minio://" + bucket + "?endpoint=" + s3ep
	removeBucket(t, s3ep, bucket)
	testStageScale(t, c, c.store)
}

func testStageScale(t *testing.T, c *cli, storeURL string) {
	if testing.Short() {
		t.Skip("-short: staging 10,000 values")
	}
	root, want := stageTree(t)
	c.want(0, "", "init")
	token := tok(c.acquire("d"))
	start := time.Now()
	receipts := make([]string, stageWorkers)
	var wg sync.WaitGroup
	results := make([]result, stageWorkers)
	for w := range stageWorkers {
		receipts[w] = filepath.Join(c.dir, fmt.Sprintf("receipts/w%02d.jsonl", w))
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[w] = c.run("", "stage", "d", "--dir", fmt.Sprintf("%s/w%02d:out/w%02d", root, w, w), "--token", token, "--parallel", "4")
		}()
	}
	wg.Wait()
	if err := os.MkdirAll(filepath.Join(c.dir, "receipts"), 0o755); err != nil {
		t.Fatal(err)
	}
	for w, r := range results {
		if r.code != 0 {
			t.Fatalf("worker %d: %s", w, r)
		}
		if err := os.WriteFile(receipts[w], []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d workers staged %d values in %v", stageWorkers, stageValues, time.Since(start))

	ctx := context.Background()
	b, err := config.OpenBackend(ctx, storeURL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	reader := objstore.New(b, nil)
	if vs, err := reader.List(ctx, "d", nil); err != nil || len(vs) != 0 {
		t.Fatalf("before the commit a reader lists %d keys (%v), want none", len(vs), err)
	}
	if _, _, err := reader.ReadAll(ctx, "d", "out/w00/v00000"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("before the commit: read a staged key: %v, want not found", err)
	}

	start = time.Now()
	r := c.want(0, "", "commit", "d", "--token", token, "--receipts", filepath.Join(c.dir, "receipts"))
	t.Logf("one commit of %d receipts in %v: %s", stageValues, time.Since(start), strings.TrimSpace(r.stdout))

	start = time.Now()
	vs, err := reader.List(ctx, "d", nil)
	if err != nil || len(vs) != stageValues {
		t.Fatalf("after the commit a reader lists %d keys (%v), want %d", len(vs), err, stageValues)
	}
	var g errgroup.Group
	g.SetLimit(16)
	for key, sum := range want {
		g.Go(func() error {
			data, _, err := reader.ReadAll(ctx, "d", key)
			switch {
			case err != nil:
				return fmt.Errorf("read %q: %w", key, err)
			case sha256.Sum256(data) != sum:
				return fmt.Errorf("read %q: %d bytes, sha256 differs from the file staged", key, len(data))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	t.Logf("a reader checked %d values byte for byte in %v", stageValues, time.Since(start))
}
