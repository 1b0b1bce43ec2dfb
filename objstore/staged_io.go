package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// OpenStaged opens length bytes, from offset, of the value a receipt
// describes, before any commit publishes it: a worker reads back what it
// staged (the S3 gateway answers a job's reads of its own writes so). A
// negative length reads to the end; a range past the end is cut there;
// an offset past the end is ErrInvalid. The reader checks that exactly
// the range's bytes arrive and, when it reads the whole value, its
// SHA-256, failing with ErrIntegrity otherwise. A staged object that is
// gone (discarded, or collected after its token was fenced) is
// ErrNotFound.
func (s *Store) OpenStaged(ctx context.Context, r Receipt, offset, length int64) (io.ReadCloser, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if offset < 0 || offset > r.Size {
		return nil, &InvalidError{What: "offset", Value: fmt.Sprint(offset), Reason: fmt.Sprintf("outside the %d bytes of staged key %q", r.Size, r.Key)}
	}
	n := r.Size - offset
	if length >= 0 && length < n {
		n = length
	}
	if n == 0 {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	whole := offset == 0 && n == r.Size
	opts := driver.GetOptions{}
	if !whole {
		opts = driver.GetOptions{Offset: offset, Length: n}
	}
	rc, info, err := s.b.Get(ctx, r.Object, opts)
	if errors.Is(err, driver.ErrNotFound) {
		return nil, fmt.Errorf("objstore: staged value of key %q (object %q) is gone: %w", r.Key, r.Object, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("objstore: read staged value of key %q: %w", r.Key, err)
	}
	if info.Size != r.Size {
		rc.Close()
		return nil, fmt.Errorf("objstore: staged object %q has %d bytes, its receipt says %d: %w", r.Object, info.Size, r.Size, ErrIntegrity)
	}
	v := Version{Key: r.Key, Object: r.Object, Size: r.Size, SHA256: r.SHA256, Token: r.Token, crc32c: r.CRC32C, crc32: r.CRC32}
	if whole {
		return s.newReader(v, rc), nil
	}
	return &rangeReader{rc: rc, v: v, left: n}, nil
}

// DiscardStaged deletes the objects of staged values that will never be
// published: a worker that staged a key again, or gave its output up. It
// reads each domain's manifest once, and refuses, deleting nothing of
// it, a value the manifest names (a commit published it); the caller
// must not be committing the receipts at the same time. Discarding an
// object that is already gone is not an error. Anything DiscardStaged
// does not delete, gc deletes once the domain's highest token has
// passed the receipt's.
func (s *Store) DiscardStaged(ctx context.Context, rs ...Receipt) error {
	for _, r := range rs {
		if err := r.Validate(); err != nil {
			return err
		}
	}
	var errs []error
	manifests := map[string]*format.Manifest{}
	for _, r := range rs {
		m, read := manifests[r.Domain]
		if !read {
			var err error
			if m, _, err = s.loadManifest(ctx, r.Domain); err != nil {
				return err
			}
			manifests[r.Domain] = m
		}
		if m != nil {
			e, ok, err := s.state(m).Lookup(ctx, r.Key)
			if err != nil {
				return err
			}
			if ok && e.Version == r.Object {
				errs = append(errs, &InvalidError{What: "receipt", Value: r.Object, Reason: fmt.Sprintf("published at manifest seq %d of domain %q: a published value is never discarded", m.Seq, r.Domain)})
				continue
			}
		}
		if err := s.b.Delete(ctx, r.Object); err != nil && !errors.Is(err, driver.ErrNotFound) {
			errs = append(errs, fmt.Errorf("objstore: discard staged value of key %q (object %q): %w", r.Key, r.Object, err))
		}
	}
	return errors.Join(errs...)
}
