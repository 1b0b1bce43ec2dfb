package objstore

import (
	"crypto/sha256"
	"encoding"
	"fmt"
	"hash"

	"github.com/fencedstore/fence/objstore/driver"
)

// partHash is the running SHA-256, CRC-32C and CRC-32 of a value
// uploaded in parts, over the parts hashed so far, in part order.
type partHash struct {
	sha    hash.Hash
	crc32c uint32
	crc32  uint32
	n      int64
}

// hashState is a snapshot of a partHash, taken at a part boundary, from
// which hashing can resume: the SHA-256's state as its
// encoding.BinaryMarshaler gives it, the CRCs and the length.
type hashState struct {
	sha    []byte
	crc32c uint32
	crc32  uint32
	n      int64
}

// emptyHashState is the state before the first byte.
func emptyHashState() hashState {
	return (&partHash{sha: sha256.New()}).state()
}

// resume returns a partHash that continues from st. st is not modified.
func (st hashState) resume() *partHash {
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(st.sha); err != nil {
		// st came from state, of the same build's SHA-256.
		panic(fmt.Sprintf("objstore: resuming a SHA-256 state: %v", err))
	}
	return &partHash{sha: h, crc32c: st.crc32c, crc32: st.crc32, n: st.n}
}

// Write adds p. It never fails.
func (h *partHash) Write(p []byte) (int, error) {
	h.sha.Write(p)
	h.crc32c, h.crc32 = driver.UpdateCRCs(h.crc32c, h.crc32, p)
	h.n += int64(len(p))
	return len(p), nil
}

// state returns a snapshot of h.
func (h *partHash) state() hashState {
	b, err := h.sha.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic(fmt.Sprintf("objstore: saving a SHA-256 state: %v", err)) // never fails for crypto/sha256
	}
	return hashState{sha: b, crc32c: h.crc32c, crc32: h.crc32, n: h.n}
}

// digest returns the Digest of everything written to h.
func (h *partHash) digest() driver.Digest {
	dg := driver.Digest{Known: true, Size: h.n, CRCs: true, CRC32C: h.crc32c, CRC32: h.crc32}
	h.sha.Sum(dg.SHA256[:0])
	return dg
}
