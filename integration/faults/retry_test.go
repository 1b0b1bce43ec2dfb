package faults

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/memstore"
)

// staleAfterWrite is a backend whose manifest, once forget is set, reads
// as missing (a stale read from an erasure-coded MinIO), and whose next
// manifest write, after applying, answers with an error (a lost reply).
type staleAfterWrite struct {
	objstore.Backend
	mu       sync.Mutex
	loseNext bool // the next manifest write applies, then reports an error
	forget   bool // manifest reads answer 404 (or, with down, fail)
	down     bool
}

func (b *staleAfterWrite) Get(ctx context.Context, key string) (io.ReadCloser, objstore.ObjectInfo, error) {
	b.mu.Lock()
	f, down := b.forget, b.down
	b.mu.Unlock()
	if f && strings.HasSuffix(key, "/_fence/manifest.json") {
		if down {
			return nil, objstore.ObjectInfo{}, fmt.Errorf("read %q: connection reset by peer", key)
		}
		return nil, objstore.ObjectInfo{}, fmt.Errorf("stale read of %q: %w", key, objstore.ErrNotFound)
	}
	return b.Backend.Get(ctx, key)
}

func (b *staleAfterWrite) Put(ctx context.Context, key string, body io.Reader, size int64, opts objstore.PutOptions) (objstore.ObjectInfo, error) {
	info, err := b.Backend.Put(ctx, key, body, size, opts)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil && b.loseNext && strings.HasSuffix(key, "/_fence/manifest.json") {
		b.loseNext, b.forget = false, true
		return objstore.ObjectInfo{}, errors.New("reply lost (the write applied)")
	}
	return info, err
}

// TestRetryOfLandedCommitNotReportedFailed replays, deterministically,
// the counterexample X3 found in long-mode forgetful runs (see
// docs/faults.md, Findings): a commit whose manifest write landed ends
// unknown (its reply was lost and the read-back met a stale, missing
// manifest); its retry with UnknownOutcomeError.Retry meets the missing
// (or unreachable) manifest again, and must not report a plain failure,
// since the commit landed: only success (Recovered), ErrOutcomeUnknown,
// or a fence that proves it did not land. It failed before d88de83.
func TestRetryOfLandedCommitNotReportedFailed(t *testing.T) {
	for _, tc := range []struct {
		name string
		down bool
	}{{"manifest reads as missing", false}, {"manifest unreachable until the deadline", true}} {
		t.Run(tc.name, func(t *testing.T) {
			// Each call gets a second: the store's read-back of a manifest
			// it cannot reach retries until its context ends.
			call := func() context.Context {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				t.Cleanup(cancel)
				return ctx
			}
			b := &staleAfterWrite{Backend: memstore.New(), down: tc.down}
			s := objstore.New(b, &objstore.Options{Holder: "t"})
			if _, err := s.Fence(call(), "d", 1); err != nil {
				t.Fatal(err)
			}
			b.mu.Lock()
			b.loseNext = true
			b.mu.Unlock()
			change := func() []objstore.Change { return []objstore.Change{objstore.PutBytes("k", []byte("v"))} }
			_, err := s.Commit(call(), "d", 1, change(), nil)
			var ue *objstore.UnknownOutcomeError
			if !errors.As(err, &ue) {
				t.Fatalf("first attempt: %v, want an unknown outcome", err)
			}
			// The retry, while the manifest still cannot be read.
			_, err = s.Commit(call(), "d", 1, change(), ue.Retry())
			if err != nil && !errors.Is(err, objstore.ErrOutcomeUnknown) {
				t.Errorf("retry of a commit that landed, %s: %v; want success or ErrOutcomeUnknown, never a plain error (a caller takes it for \"not applied\")", tc.name, err)
			}
			// Once the manifest reads again, the retry recovers.
			b.mu.Lock()
			b.forget = false
			b.mu.Unlock()
			cm, err := s.Commit(call(), "d", 1, change(), ue.Retry())
			if err != nil || !cm.Recovered {
				t.Errorf("retry once the manifest reads again: %+v, %v; want Recovered", cm, err)
			}
		})
	}
}
