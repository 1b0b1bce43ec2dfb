package s3part

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"io"

	"github.com/fencedstore/fence/objstore/driver"
)

// Memory is a body held in memory that tells its length: a
// *bytes.Reader, a *strings.Reader, or another reader with their Len,
// Size and WriteTo (objstore's manifest writes). Sent as it is, it needs
// no part buffer: the SDK can read it, and rewind it for a retry, without
// a copy.
type Memory interface {
	io.ReadSeeker
	io.WriterTo
	Len() int    // the bytes not yet read
	Size() int64 // the whole body's length
}

// InMemory returns body as a Memory when it is one, at its start, that
// holds exactly size bytes. Any other body, and one whose length differs
// from size (which Read refuses), goes through Read.
func InMemory(body io.Reader, size int64) (Memory, bool) {
	m, ok := body.(Memory)
	if !ok || size < 0 || m.Size() != size || int64(m.Len()) != size {
		return nil, false
	}
	return m, true
}

// Sum256 returns the SHA-256 of m, which InMemory returned, and leaves m
// at its start.
func Sum256(m Memory) (sum [sha256.Size]byte, err error) {
	h := sha256.New()
	if _, err := m.WriteTo(h); err != nil {
		return sum, err
	}
	if _, err := m.Seek(0, io.SeekStart); err != nil {
		return sum, err
	}
	h.Sum(sum[:0])
	return sum, nil
}

// DigestOf returns the digest (length, SHA-256 and CRCs) of m, which
// InMemory returned, and leaves m at its start.
func DigestOf(m Memory) (driver.Digest, error) {
	d := driver.NewDigester()
	if _, err := m.WriteTo(d); err != nil {
		return driver.Digest{}, err
	}
	if _, err := m.Seek(0, io.SeekStart); err != nil {
		return driver.Digest{}, err
	}
	return d.Digest(), nil
}

// HashSeekable is the first pass of a put that sends a rewindable body
// with one request signed with its SHA-256: it reads size bytes of body
// from where it is, checks that the body ends there, hashes them (with
// whole, their CRCs too: Digester's digest) and seeks back. It returns
// the offset the body started at, and the digest (SHA256 set, and the
// CRCs with whole; not yet Known).
func HashSeekable(body io.ReadSeeker, size int64, whole bool) (start int64, dg driver.Digest, err error) {
	if start, err = body.Seek(0, io.SeekCurrent); err != nil {
		return 0, driver.Digest{}, err
	}
	var h io.Writer
	var sha hash.Hash
	var d *driver.Digester
	if whole {
		d = driver.NewDigester()
		h = d
	} else {
		sha = sha256.New()
		h = sha
	}
	n, err := io.Copy(h, io.LimitReader(body, size+1))
	if err == nil && n != size {
		if n > size {
			err = fmt.Errorf("body is longer than the declared size %d", size)
		} else {
			err = fmt.Errorf("body has %d bytes, size says %d", n, size)
		}
	}
	if err == nil {
		_, err = body.Seek(start, io.SeekStart)
	}
	if err != nil {
		return 0, driver.Digest{}, err
	}
	if d != nil {
		dg = d.Digest()
		dg.Known = false
	} else {
		sha.Sum(dg.SHA256[:0])
	}
	return start, dg, nil
}
