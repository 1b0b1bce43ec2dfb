package objstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
)

// NewRangeReader opens length bytes of key's version at the snapshot,
// starting at offset; a negative length reads to the end, and a range
// that runs past the end is cut there. An offset past the end is
// ErrInvalid.
//
// A ranged read cannot check the version's SHA-256, which covers the
// whole version: it checks that the backend's object has the size the
// manifest records and that exactly the range's bytes arrive, failing
// with ErrIntegrity otherwise. (Version objects are never rewritten, so
// their bytes change only by corruption.) Read the whole key with Get to
// verify it.
func (sn *Snapshot) NewRangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	v, err := sn.Version(ctx, key)
	if err != nil {
		return nil, err
	}
	if offset < 0 || offset > v.Size {
		return nil, &InvalidError{What: "offset", Value: fmt.Sprint(offset), Reason: fmt.Sprintf("outside the %d bytes of key %q", v.Size, key)}
	}
	n := v.Size - offset
	if length >= 0 && length < n {
		n = length
	}
	if v.Inline {
		// Small: verify the whole value, then cut the range.
		data, err := io.ReadAll(sn.s.inlineReader(v))
		if err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(data[offset : offset+n])), nil
	}
	if data, ok := sn.s.versions.get(v.Object); ok { // verified when cached
		return io.NopCloser(bytes.NewReader(data[offset : offset+n])), nil
	}
	if n == 0 {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	rc, info, err := sn.s.getVersion(ctx, v, offset, n)
	if err != nil {
		return nil, sn.readFailed(ctx, v, err)
	}
	if v.Pack == "" && info.Size != v.Size {
		rc.Close()
		return nil, fmt.Errorf("objstore: version %q of key %q: the object has %d bytes, recorded %d: %w", v.Object, key, info.Size, v.Size, ErrIntegrity)
	}
	return &rangeReader{rc: rc, v: v, left: n}, nil
}

// NewRangeReader opens part of key's current bytes; see
// Snapshot.NewRangeReader.
func (s *Store) NewRangeReader(ctx context.Context, domain, key string, offset, length int64) (io.ReadCloser, error) {
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	sn, err := s.Snapshot(ctx, domain)
	if err != nil {
		return nil, err
	}
	return sn.NewRangeReader(ctx, key, offset, length)
}

// rangeReader checks that exactly left bytes arrive.
type rangeReader struct {
	rc   io.ReadCloser
	v    Version
	left int64
}

func (r *rangeReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	r.left -= int64(n)
	switch {
	case r.left < 0:
		return n, fmt.Errorf("objstore: version %q of key %q: the store sent more than the range: %w", r.v.Object, r.v.Key, ErrIntegrity)
	case err == io.EOF && r.left > 0:
		return n, fmt.Errorf("objstore: version %q of key %q: the range ended %d bytes short: %w", r.v.Object, r.v.Key, r.left, ErrIntegrity)
	}
	return n, err
}

func (r *rangeReader) Close() error { return r.rc.Close() }
