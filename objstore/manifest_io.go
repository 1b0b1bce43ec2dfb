package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fencedstore/fence/internal/backoff"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

// errStopList stops a List walk after its first object.
var errStopList = errors.New("stop")

// cachedManifest returns the manifest this Store last saw for domain, or
// reads it when there is none.
func (s *Store) cachedManifest(ctx context.Context, domain string) (*format.Manifest, string, error) {
	if m, etag, ok := s.cache.get(domain); ok {
		return m, etag, nil
	}
	return s.loadManifest(ctx, domain)
}

// loadManifest reads domain's manifest and its ETag, retrying transient
// errors until ctx ends. A missing manifest returns (nil, "", nil) only if
// the domain has no versions either: versions without a manifest mean the
// manifest was lost, and treating the domain as new would let stale tokens
// back in, so that fails closed.
func (s *Store) loadManifest(ctx context.Context, domain string) (*format.Manifest, string, error) {
	key := format.ManifestKey(domain)
	bo := new(backoff.Backoff)
	for {
		before, seen := s.seen.get(domain)
		m, etag, err := s.readManifestOnce(ctx, domain, key)
		if err == nil {
			err = s.seen.check(before, seen, key, m)
		}
		if !transient(ctx, err) {
			if err != nil || m == nil {
				s.cache.drop(domain)
			} else {
				s.cache.put(domain, m, etag)
			}
			return m, etag, err
		}
		s.opts.Logger.Debug("objstore: retrying manifest read", "domain", domain, "err", err)
		if werr := bo.Wait(ctx); werr != nil {
			return nil, "", fmt.Errorf("%w (%w)", err, werr) // err names the manifest
		}
	}
}

// maxManifestHint bounds the buffer readManifestOnce sizes from the
// backend's word: a larger manifest grows it as it is read.
const maxManifestHint = 4 << 20

func (s *Store) readManifestOnce(ctx context.Context, domain, key string) (*format.Manifest, string, error) {
	var (
		rc   io.ReadCloser
		info driver.ObjectInfo
		err  error
	)
	var opts driver.GetOptions
	cached, cachedETag, ok := s.cache.get(domain)
	if ok {
		// Revalidate the cached manifest: 304 costs a round trip but no
		// transfer and no decoding.
		opts.IfNoneMatch = cachedETag
	}
	rc, info, err = s.b.Get(ctx, key, opts)
	if ok && errors.Is(err, driver.ErrNotModified) {
		return cached, cachedETag, nil
	}
	if errors.Is(err, ErrNotFound) {
		err = s.checkNoEvidence(ctx, domain, key)
		if !errors.Is(err, ErrCorruptManifest) {
			return nil, "", err
		}
		// Versions exist. Another writer may have created the manifest
		// and uploaded a version after our read: look once more, and
		// fail closed only if the manifest is still missing.
		var again error
		rc, info, again = s.b.Get(ctx, key, driver.GetOptions{})
		if errors.Is(again, ErrNotFound) {
			return nil, "", err
		}
		err = again
	}
	if err != nil {
		return nil, "", fmt.Errorf("objstore: read manifest %q: %w", key, err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	// Sized for the whole manifest when the backend says how long it is
	// (up to a bound, as a size is only a hint), so the read does not
	// grow the buffer, copying it, five times over for a 12 KiB one.
	if info.Size > 0 {
		buf.Grow(int(min(info.Size, maxManifestHint)) + bytes.MinRead)
	}
	n, err := io.Copy(&buf, io.LimitReader(rc, format.MaxManifestSize+1))
	if err != nil {
		return nil, "", fmt.Errorf("objstore: read manifest %q: %w", key, err)
	}
	if n > format.MaxManifestSize {
		return nil, "", &CorruptManifestError{Key: key, Reason: fmt.Sprintf("larger than %d bytes", format.MaxManifestSize)}
	}
	m, err := format.Decode(domain, key, buf.Bytes())
	if err != nil {
		return nil, "", corrupt(err)
	}
	return m, info.ETag, nil
}

// checkNoEvidence fails closed when a domain has no manifest but other
// objects say it existed: versions, shards, or the domain's floor marker.
// Only the bucket-lease record, and records of attempts refused because
// the coordinator had issued a newer token, may exist before the first
// manifest.
func (s *Store) checkNoEvidence(ctx context.Context, domain, manifestKey string) error {
	var found string
	lease := rules.SystemKey(domain, "lease.json")
	err := s.b.List(ctx, domain+format.SystemDir, func(o driver.ObjectInfo) error {
		if o.Key == lease || o.Key == manifestKey || strings.HasPrefix(o.Key, format.FencedPrefix(domain)) {
			return nil
		}
		found = o.Key
		return errStopList
	})
	if err != nil && !errors.Is(err, errStopList) {
		return fmt.Errorf("objstore: manifest %q is missing; checking for other objects of the domain: %w", manifestKey, err)
	}
	if found != "" {
		return &CorruptManifestError{Key: manifestKey, Reason: fmt.Sprintf("missing, but the domain has other objects (for example %q), so it existed: the manifest was lost, and treating the domain as new would let stale tokens back in. Restore the manifest; or, to reset the domain on purpose, delete everything under %q except the lease record, and acquire above the last token issued", found, domain+format.SystemDir)}
	}
	return nil
}
