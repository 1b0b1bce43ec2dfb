package objstore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// TestEntryOfDigits: entryOf writes the SHA-256 and CRCs as entries record
// them, lower-case hex of 64 and 8 digits, each field on its own (they
// share one string), and no CRCs when the digest has none.
func TestEntryOfDigits(t *testing.T) {
	for _, data := range []string{"", "a", "fence"} {
		sum := sha256.Sum256([]byte(data))
		dg := driver.DigestOf([]byte(data))
		e := entryOf("v", dg, 7)
		if e.Version != "v" || e.Size != int64(len(data)) || e.Token != 7 || e.SHA256 != hex.EncodeToString(sum[:]) ||
			e.CRC32C != fmt.Sprintf("%08x", dg.CRC32C) || e.CRC32 != fmt.Sprintf("%08x", dg.CRC32) {
			t.Fatalf("entryOf(%q) = %+v", data, e)
		}
		dg.CRCs = false
		if e := entryOf("v", dg, 7); e.SHA256 != hex.EncodeToString(sum[:]) || e.CRC32C != "" || e.CRC32 != "" {
			t.Fatalf("entryOf(%q) without CRCs = %+v", data, e)
		}
	}
	// A CRC with leading zeros keeps them.
	e := entryOf("v", driver.Digest{Known: true, CRCs: true, CRC32C: 0x1, CRC32: 0xabc}, 1)
	if e.CRC32C != "00000001" || e.CRC32 != "00000abc" {
		t.Fatalf("entryOf of CRCs 1 and 0xabc = %q %q", e.CRC32C, e.CRC32)
	}
}
