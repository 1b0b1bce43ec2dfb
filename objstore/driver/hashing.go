package driver

import (
	"context"
	"crypto/sha256"
	"hash"
	"hash/crc32"
	"io"
)

// A HashingPutter is a Backend whose writes hash their bodies anyway (an
// S3 request is signed with its payload's SHA-256) and can report the
// hash, so that the Store, which records every value's SHA-256, need not
// hash the same bytes a second time.
type HashingPutter interface {
	// PutHashed is Put, and also returns the length and SHA-256 of
	// body, and its CRCs if it computes them (Digest.CRCs). The digest is
	// known whenever the whole body was read: after a successful write,
	// and with ErrPreconditionFailed (the body is read before the
	// precondition is decided). Otherwise it is the zero Digest.
	PutHashed(ctx context.Context, key string, body io.Reader, size int64, opts PutOptions) (ObjectInfo, Digest, error)
}

// Digest is the length, SHA-256 and CRCs of a body a HashingPutter read.
type Digest struct {
	// Known: the whole body was read, and Size and SHA256 are set.
	Known  bool
	Size   int64
	SHA256 [sha256.Size]byte
	// CRCs: CRC32C (Castagnoli) and CRC32 (IEEE) are set too. A
	// HashingPutter that does not compute them leaves it false, and the
	// Store records the value without them (its readers then check its
	// SHA-256).
	CRCs   bool
	CRC32C uint32
	CRC32  uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// UpdateCRCs returns the CRC-32C and CRC-32 of the bytes they were the
// CRCs of followed by p: the two checks a Digest records, in one place
// for the Digester and for readers that check them without SHA-256.
func UpdateCRCs(crc32c, crc32ieee uint32, p []byte) (uint32, uint32) {
	return crc32.Update(crc32c, castagnoli, p), crc32.Update(crc32ieee, crc32.IEEETable, p)
}

// A Digester computes the Digest (length, SHA-256 and CRCs) of what is
// written to it, in one pass. Backends that implement HashingPutter use
// it for the bodies they read whole.
type Digester struct {
	sha    hash.Hash
	crc32c uint32
	crc32  uint32
	n      int64
}

// NewDigester returns an empty Digester.
func NewDigester() *Digester { return &Digester{sha: sha256.New()} }

// Write adds p to the digest. It never fails.
func (d *Digester) Write(p []byte) (int, error) {
	d.sha.Write(p)
	d.crc32c, d.crc32 = UpdateCRCs(d.crc32c, d.crc32, p)
	d.n += int64(len(p))
	return len(p), nil
}

// Digest returns the Digest of everything written so far, Known and
// with its CRCs.
func (d *Digester) Digest() Digest {
	dg := Digest{Known: true, Size: d.n, CRCs: true, CRC32C: d.crc32c, CRC32: d.crc32}
	d.sha.Sum(dg.SHA256[:0])
	return dg
}

// DigestOf returns the Digest of data.
// It allocates nothing: a commit calls it for every value it keeps
// inline.
func DigestOf(data []byte) Digest {
	dg := Digest{Known: true, Size: int64(len(data)), SHA256: sha256.Sum256(data), CRCs: true}
	dg.CRC32C, dg.CRC32 = UpdateCRCs(0, 0, data)
	return dg
}
