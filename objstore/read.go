package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/readahead"

	"github.com/fencedstore/fence/internal/format"
)

// Reads need no lease and no token: they read the manifest, then the
// version it names, and verify its size and checksums (see checksum.go).

// A version of more than readAheadMin bytes checked by its SHA-256 is read
// ahead of its reader by readAheadBuffers buffers of readAheadSize bytes
// (4 MiB in flight), so that the hash overlaps the transfer. One checked
// by its CRCs is not: they cost too little CPU for the overlap to show,
// and the buffers would add 4 MiB to the read's memory (docs/benchmarks.md,
// "get 64 MiB").
const (
	readAheadMin     = 1 << 20
	readAheadBuffers = 4
	readAheadSize    = 1 << 20
)

// Snapshot is one manifest of a domain, pinned: every read through it sees
// the same commit, whatever is committed meanwhile.
type Snapshot struct {
	s      *Store
	domain string
	m      *format.Manifest
}

// Snapshot pins domain's current manifest. It fails with an error matching
// ErrNotFound when nothing was ever committed to the domain.
func (s *Store) Snapshot(ctx context.Context, domain string) (*Snapshot, error) {
	if err := ValidateDomain(domain); err != nil {
		return nil, err
	}
	m, _, err := s.loadManifest(ctx, domain)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("objstore: domain %q has no manifest (nothing was committed to it): %w", domain, ErrNotFound)
	}
	return &Snapshot{s: s, domain: domain, m: m}, nil
}

// Domain returns the snapshot's domain.
func (sn *Snapshot) Domain() string { return sn.domain }

// Highest returns the domain's highest accepted token at the snapshot.
func (sn *Snapshot) Highest() uint64 { return sn.m.Highest }

// Seq returns the manifest version the snapshot pins.
func (sn *Snapshot) Seq() uint64 { return sn.m.Seq }

// Version returns key's version at the snapshot.
func (sn *Snapshot) Version(ctx context.Context, key string) (Version, error) {
	if err := ValidateKey(key); err != nil {
		return Version{}, err
	}
	e, ok, err := sn.s.state(sn.m).Lookup(ctx, key)
	if err != nil {
		return Version{}, err
	}
	if !ok {
		return Version{}, fmt.Errorf("objstore: key %q is not live in domain %q (manifest seq %d): %w", key, sn.domain, sn.m.Seq, ErrNotFound)
	}
	return versionOf(key, e), nil
}

// Get opens key's bytes at the snapshot. The reader verifies size and
// checksums as it is read (CRC-32C and CRC-32 when the manifest records
// them, else SHA-256; see Options.VerifySHA256) and fails with
// ErrIntegrity at the end if they differ from the manifest's record. A
// version the current manifest names but the store no longer has is a
// *DataLossError (ErrDataLoss), not ErrNotFound.
func (sn *Snapshot) Get(ctx context.Context, key string) (*Reader, error) {
	v, err := sn.Version(ctx, key)
	if err != nil {
		return nil, err
	}
	if v.Inline {
		return sn.s.inlineReader(v), nil
	}
	cache := sn.s.versions
	if data, ok := cache.get(v.Object); ok {
		return sn.s.newReader(v, io.NopCloser(bytes.NewReader(data))), nil
	}
	rc, _, err := sn.s.getVersion(ctx, v, 0, 0)
	if err != nil {
		return nil, sn.readFailed(ctx, v, err)
	}
	r := sn.s.newReader(v, rc)
	if v.Size > readAheadMin && r.check.sha != nil {
		// A goroutine reads the next megabytes from the network while
		// the reader's goroutine hashes what it returns, so that the
		// verification overlaps the transfer instead of following it.
		ra, err := readahead.NewReadCloserSize(rc, readAheadBuffers, readAheadSize)
		if err != nil { // only for invalid sizes
			rc.Close()
			return nil, fmt.Errorf("objstore: read %q: %w", key, err)
		}
		// Close closes the body first: the read-ahead goroutine may be
		// blocked reading it, and the read-ahead's Close waits for it.
		r.rc, r.raw = ra, rc
		return r, nil
	}
	if cache.fits(v.Size) {
		// Keep the bytes once they are read to the end and verified.
		r.keep = make([]byte, 0, v.Size)
		r.verified = func(data []byte) { cache.put(v.Object, data) }
	}
	return r, nil
}

// ReadAll returns key's verified bytes at the snapshot, and its version.
func (sn *Snapshot) ReadAll(ctx context.Context, key string) ([]byte, Version, error) {
	r, err := sn.Get(ctx, key)
	if err != nil {
		return nil, Version{}, err
	}
	defer r.Close()
	var buf bytes.Buffer
	buf.Grow(int(min(r.Version.Size, 64<<20)))
	if _, err := io.Copy(&buf, r); err != nil {
		return nil, Version{}, err
	}
	return buf.Bytes(), r.Version, nil
}

// Get opens key's current bytes; see Snapshot.Get.
func (s *Store) Get(ctx context.Context, domain, key string) (*Reader, error) {
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	sn, err := s.Snapshot(ctx, domain)
	if err != nil {
		return nil, err
	}
	return sn.Get(ctx, key)
}

// ReadAll returns key's current, verified bytes and version.
func (s *Store) ReadAll(ctx context.Context, domain, key string) ([]byte, Version, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Version{}, err
	}
	sn, err := s.Snapshot(ctx, domain)
	if err != nil {
		return nil, Version{}, err
	}
	return sn.ReadAll(ctx, key)
}

// Highest returns domain's highest accepted token, or 0 when nothing was
// ever committed to it. A corrupt manifest is an error, never 0. Pass the
// result as the floor of a lease acquisition.
func (s *Store) Highest(ctx context.Context, domain string) (uint64, error) {
	if err := ValidateDomain(domain); err != nil {
		return 0, err
	}
	m, _, err := s.loadManifest(ctx, domain)
	if err != nil || m == nil {
		return 0, err
	}
	return m.Highest, nil
}

// Reader streams one version's bytes and verifies them.
type Reader struct {
	Version Version
	rc      io.ReadCloser
	raw     io.Closer // the backend's body under a read-ahead rc, or nil
	check   verifier
	n       int64
	err     error
	// keep collects the bytes of a small version; verified receives them
	// once size and checksums have matched.
	keep     []byte
	verified func([]byte)
}

// newReader returns a Reader of v's bytes from rc, which it verifies.
func (s *Store) newReader(v Version, rc io.ReadCloser) *Reader {
	return &Reader{Version: v, rc: rc, check: s.newVerifier(v)}
}

// Read reads the version's bytes. At the end it returns io.EOF only if
// size and checksums match the manifest; otherwise an error matching
// ErrIntegrity.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.rc.Read(p)
	r.check.write(p[:n])
	r.n += int64(n)
	if r.keep != nil && r.n <= r.Version.Size {
		r.keep = append(r.keep, p[:n]...)
	}
	if r.n > r.Version.Size {
		r.err = r.integrity(fmt.Sprintf("more than the recorded %d bytes", r.Version.Size))
		return n, r.err
	}
	if err == io.EOF {
		if r.n != r.Version.Size {
			err = r.integrity(fmt.Sprintf("%d bytes, recorded %d", r.n, r.Version.Size))
		} else if bad := r.check.mismatch(r.Version); bad != "" {
			err = r.integrity(bad)
		} else if r.verified != nil {
			r.verified(r.keep)
			r.verified, r.keep = nil, nil
		}
		r.err = err
	}
	return n, err
}

// checkErr returns the error with which the bytes failed their check
// (it matches ErrIntegrity), or nil: not an error of the read itself,
// which reading again may cure.
func (r *Reader) checkErr() error {
	if errors.Is(r.err, ErrIntegrity) {
		return r.err
	}
	return nil
}

func (r *Reader) integrity(what string) error {
	return fmt.Errorf("objstore: version %q of key %q: %s: %w", r.Version.Object, r.Version.Key, what, ErrIntegrity)
}

// Close releases the underlying object reader.
func (r *Reader) Close() error {
	if r.raw != nil {
		r.raw.Close()
	}
	return r.rc.Close()
}
