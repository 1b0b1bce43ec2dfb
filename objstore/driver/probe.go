package driver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Some S3-compatible stores and proxies accept conditional headers and
// then ignore them. Fencing would then silently do nothing, so whoever
// writes to a backend (a Store, a bucket lease coordinator) first proves
// with Probe that it honours them, and refuses to write when it does not.

// ProbePrefix is where Probe writes its one object: a prefix no domain
// can use.
const ProbePrefix = "_fence/probe/"

// probes holds one *probeOnce per location.
var probes sync.Map

type probeOnce struct {
	mu     sync.Mutex
	passed bool
}

// Probe checks that b honours conditional writes: Create on an existing
// object and Update with a stale ETag must both fail, and Update with the
// current ETag must succeed. It writes and then deletes one object under
// ProbePrefix. A backend that fails gets an error matching
// ErrUnsafeStore.
//
// A probe that passed is remembered for b's Location for the life of the
// process, so every writer to one location probes it once; one that
// failed is run again next time.
func Probe(ctx context.Context, b Backend) error {
	v, _ := probes.LoadOrStore(b.Location(), &probeOnce{})
	p := v.(*probeOnce)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.passed {
		return nil
	}
	if err := probe(ctx, b); err != nil {
		return err
	}
	p.passed = true
	return nil
}

func probe(ctx context.Context, b Backend) error {
	var id [8]byte
	_, _ = rand.Read(id[:])
	key := ProbePrefix + hex.EncodeToString(id[:])
	defer b.Delete(context.WithoutCancel(ctx), key)
	put := func(body string, mode PutMode) (ObjectInfo, error) {
		return b.Put(ctx, key, strings.NewReader(body), int64(len(body)), PutOptions{Mode: mode})
	}
	unsafe := func(what string) error {
		return fmt.Errorf("%w: %s (probe object %q at %s). Use a store that supports S3 conditional writes, or opt out explicitly (SkipProbe / --unsafe-skip-probe) and accept that stale writers will NOT be fenced", ErrUnsafeStore, what, key, b.Location())
	}
	first, err := put("1", Create{})
	if err != nil {
		return cannotWrite(b, key, err)
	}
	_, err = put("2", Create{})
	switch {
	case err == nil:
		return unsafe("a write with If-None-Match: * replaced an existing object")
	case errors.Is(err, ErrPermanent):
		return cannotWrite(b, key, err)
	case !errors.Is(err, ErrPreconditionFailed):
		return fmt.Errorf("objstore: capability probe: If-None-Match on an existing object: want 412 Precondition Failed, got: %w", err)
	}
	_, err = put("3", Update{ETag: staleETag(first.ETag)})
	switch {
	case err == nil:
		return unsafe("a write with a stale If-Match ETag succeeded")
	case errors.Is(err, ErrPermanent):
		return cannotWrite(b, key, err)
	case !errors.Is(err, ErrPreconditionFailed):
		return fmt.Errorf("objstore: capability probe: stale If-Match: want 412 Precondition Failed, got: %w", err)
	}
	if _, err := put("4", Update{ETag: first.ETag}); errors.Is(err, ErrPermanent) {
		return cannotWrite(b, key, err)
	} else if err != nil {
		return fmt.Errorf("objstore: capability probe: If-Match with the current ETag %q failed, so no commit could ever succeed: %w", first.ETag, err)
	}
	return nil
}

// cannotWrite reports a probe write that the store refused for a reason
// of its own (permission denied, disk full, read-only, ...): the store
// could not be written at all, which says nothing about conditional
// writes.
func cannotWrite(b Backend, key string, err error) error {
	if errors.Is(err, ErrPermanent) {
		return fmt.Errorf("objstore: cannot write to %s (it refused a write of the capability probe's object %q; this is not about conditional writes): %w", b.Location(), key, err)
	}
	return fmt.Errorf("objstore: capability probe: create %q: %w", key, err)
}

// staleETag returns an ETag of the same shape as etag that differs from it.
func staleETag(etag string) string {
	if etag == "" {
		return `"0"`
	}
	b := []byte(etag)
	for i := len(b) - 1; i >= 0; i-- {
		if c := b[i]; c >= '0' && c <= '9' || c >= 'a' && c <= 'f' {
			if c == '0' {
				b[i] = '1'
			} else {
				b[i] = '0'
			}
			return string(b)
		}
	}
	return etag + "0"
}
