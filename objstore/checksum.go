package objstore

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
)

// Every version's entry records its size and SHA-256 and, when written by
// a build that has them, its CRC-32C and CRC-32 (format.Entry). A reader
// checks the size and the two CRCs, a 64-bit check whose CPU cost is a
// small fraction of SHA-256's, and SHA-256 only for entries without them
// or when Options.VerifySHA256 asks for it. See docs/design.md,
// "Checking what is read".

// entryOf is the entry of a version written to object vk by the commit at
// token, whose bytes dg describes: its size, SHA-256 and, when dg has
// them, CRCs.
//
// The hex digits of all three are one string, which the entry's fields
// share (one allocation for each value a commit writes, not six).
func entryOf(vk string, dg driver.Digest, token uint64) format.Entry {
	var buf [2*sha256.Size + 16]byte
	b := hex.AppendEncode(buf[:0], dg.SHA256[:])
	if dg.CRCs {
		var c [8]byte
		binary.BigEndian.PutUint32(c[:4], dg.CRC32C)
		binary.BigEndian.PutUint32(c[4:], dg.CRC32)
		b = hex.AppendEncode(b, c[:])
	}
	digits := string(b)
	e := format.Entry{Version: vk, Size: dg.Size, SHA256: digits[:2*sha256.Size], Token: token}
	if dg.CRCs {
		e.CRC32C, e.CRC32 = digits[2*sha256.Size:2*sha256.Size+8], digits[2*sha256.Size+8:]
	}
	return e
}

// crcHex writes a CRC as entries record it: 8 lower-case hex digits.
func crcHex(c uint32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], c)
	return hex.EncodeToString(b[:])
}

// digestMatches reports whether dg, the digest of bytes read back from
// the store, matches entry e: size, SHA-256, and the CRCs e records.
func digestMatches(dg driver.Digest, e format.Entry) bool {
	if dg.Size != e.Size || hex.EncodeToString(dg.SHA256[:]) != e.SHA256 {
		return false
	}
	return (e.CRC32C == "" || crcHex(dg.CRC32C) == e.CRC32C) && (e.CRC32 == "" || crcHex(dg.CRC32) == e.CRC32)
}

// verifier checks one version's bytes as they are read.
type verifier struct {
	sha           hash.Hash // nil when SHA-256 is not checked
	crcs          bool      // the entry records a CRC
	crc32c, crc32 uint32
}

// newVerifier returns the checks for v: its CRCs when its entry records
// both, and SHA-256 when it does not, or when the Store is told to.
func (s *Store) newVerifier(v Version) verifier {
	c := verifier{crcs: v.crc32c != "" || v.crc32 != ""}
	if s.opts.VerifySHA256 || v.crc32c == "" || v.crc32 == "" {
		c.sha = sha256.New()
	}
	return c
}

func (c *verifier) write(p []byte) {
	if c.sha != nil {
		c.sha.Write(p)
	}
	if c.crcs {
		c.crc32c, c.crc32 = driver.UpdateCRCs(c.crc32c, c.crc32, p)
	}
}

// mismatch returns what differs between the bytes written to c and v's
// record, or "" when they match. The size is the caller's to check.
func (c *verifier) mismatch(v Version) string {
	if v.crc32c != "" {
		if got := crcHex(c.crc32c); got != v.crc32c {
			return fmt.Sprintf("crc32c %s, recorded %s", got, v.crc32c)
		}
	}
	if v.crc32 != "" {
		if got := crcHex(c.crc32); got != v.crc32 {
			return fmt.Sprintf("crc32 %s, recorded %s", got, v.crc32)
		}
	}
	if c.sha != nil {
		if got := hex.EncodeToString(c.sha.Sum(nil)); got != v.SHA256 {
			return fmt.Sprintf("sha256 %s, recorded %s", got, v.SHA256)
		}
	}
	return ""
}

// withCRCs returns inline entry e with the CRCs of its bytes, when it
// records none (a build before them wrote it) and its bytes match its
// size and SHA-256, so that once spilled it is read by its CRCs;
// otherwise e as it is.
func withCRCs(e format.Entry) format.Entry {
	if !e.Inline || e.CRC32C != "" || e.CRC32 != "" {
		return e
	}
	dg := driver.DigestOf(e.Data)
	if !digestMatches(dg, e) {
		return e
	}
	e.CRC32C, e.CRC32 = crcHex(dg.CRC32C), crcHex(dg.CRC32)
	return e
}
