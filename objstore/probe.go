package objstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Some S3-compatible stores and proxies accept conditional headers and
// then ignore them. Fencing would then silently do nothing, so before its
// first write a Store proves that the backend honours them, and refuses to
// write when it does not.

// Locator is implemented by backends that can name the bucket they write
// to (for example "s3://bucket/prefix"). The capability probe's verdict is
// cached per location for the life of the process; backends without it
// are probed once per Store.
type Locator interface {
	Location() string
}

var probed sync.Map // location -> struct{}: probes that passed

// probeState runs the probe at most once per Store until it passes.
type probeState struct {
	mu   sync.Mutex
	done bool
}

// Probe runs the capability probe on the Store's backend unless it already
// passed for this Store or this backend's location, or Options.SkipProbe
// is set. Commits call it before their first write; call it yourself
// before writing anything else to the same backend (a lease record, say).
func (s *Store) Probe(ctx context.Context) error { return s.ensureProbed(ctx) }

// ensureProbed runs the capability probe unless it already passed for this
// Store or this backend's location, or the caller opted out.
func (s *Store) ensureProbed(ctx context.Context) error {
	if s.opts.SkipProbe {
		return nil
	}
	s.probe.mu.Lock()
	defer s.probe.mu.Unlock()
	if s.probe.done {
		return nil
	}
	loc, hasLoc := "", false
	if l, ok := s.b.(Locator); ok {
		loc, hasLoc = l.Location(), true
		if _, ok := probed.Load(loc); ok {
			s.probe.done = true
			return nil
		}
	}
	if err := Probe(ctx, s.b); err != nil {
		return err
	}
	s.probe.done = true
	if hasLoc {
		probed.Store(loc, struct{}{})
	}
	return nil
}

// Probe checks that b honours conditional writes: If-None-Match: * on an
// existing object and If-Match with a stale ETag must both fail, and
// If-Match with the current ETag must succeed. It writes and then deletes
// one object under "_fence/probe/", a prefix no domain can use. A backend
// that fails the probe gets an error matching ErrUnsafeStore.
func Probe(ctx context.Context, b Backend) error {
	key := "_fence/probe/" + newID()
	defer b.Delete(context.WithoutCancel(ctx), key)
	put := func(body string, opts PutOptions) (ObjectInfo, error) {
		return b.Put(ctx, key, strings.NewReader(body), int64(len(body)), opts)
	}
	unsafe := func(what string) error {
		return fmt.Errorf("%w: %s (probe object %q). Use a store that supports S3 conditional writes, or opt out explicitly (SkipProbe / --unsafe-skip-probe) and accept that stale writers will NOT be fenced", ErrUnsafeStore, what, key)
	}
	first, err := put("1", PutOptions{IfNoneMatch: true})
	if err != nil {
		return fmt.Errorf("objstore: capability probe: create %q: %w", key, err)
	}
	_, err = put("2", PutOptions{IfNoneMatch: true})
	switch {
	case err == nil:
		return unsafe("a write with If-None-Match: * replaced an existing object")
	case !errors.Is(err, ErrPreconditionFailed):
		return fmt.Errorf("objstore: capability probe: If-None-Match on an existing object: want 412 Precondition Failed, got: %w", err)
	}
	_, err = put("3", PutOptions{IfMatch: staleETag(first.ETag)})
	switch {
	case err == nil:
		return unsafe("a write with a stale If-Match ETag succeeded")
	case !errors.Is(err, ErrPreconditionFailed):
		return fmt.Errorf("objstore: capability probe: stale If-Match: want 412 Precondition Failed, got: %w", err)
	}
	if _, err := put("4", PutOptions{IfMatch: first.ETag}); err != nil {
		return fmt.Errorf("objstore: capability probe: If-Match with the current ETag %q failed, so no commit could ever succeed: %w", first.ETag, err)
	}
	return nil
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
