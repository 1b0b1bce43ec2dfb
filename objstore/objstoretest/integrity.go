package objstoretest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// testIntegrityChecks: a version whose bytes change behind the Store's
// back, one byte flipped or the object cut short by one byte, is refused
// with ErrIntegrity by a fresh Store: for an entry with CRCs, as this
// build writes every entry, and for one with only its SHA-256, as builds
// before CRCs wrote them; for a value kept inline (in the default mode),
// a version object read directly, and one read ahead (over 1 MiB). A flip
// is refused by the CRCs alone: with the entry's sha256 rewritten to
// match the flipped bytes, the read still fails, on a CRC.
func testIntegrityChecks(t *testing.T, s *objstore.Store, f *faulty.Backend) {
	b := f.Unwrap()
	n := 0
	for _, size := range []int{100, 64 << 10, 2<<20 + 3} {
		for _, entry := range []string{"crcs", "sha256-only"} {
			for _, damage := range []string{"flip", "truncate", "flip-sha256-matched"} {
				if entry == "sha256-only" && damage == "flip-sha256-matched" {
					continue // nothing but SHA-256 could catch it
				}
				n++
				domain := fmt.Sprintf("i%d", n)
				t.Run(fmt.Sprintf("%d/%s/%s", size, entry, damage), func(t *testing.T) {
					data := make([]byte, size)
					rand.Read(data)
					v := commitPut(t, s, domain, "k", 1, string(data)).Versions[0]
					e := entryOf(t, b, domain, "k")
					if e.CRC32C == "" || e.CRC32 == "" {
						t.Fatalf("the commit recorded crc32c %q and crc32 %q; want both", e.CRC32C, e.CRC32)
					}
					if entry == "sha256-only" {
						RewriteEntry(t, b, domain, "k", func(e *format.Entry) { e.CRC32C, e.CRC32 = "", "" })
						mustRead(t, newStore(b, nil), domain, "k", string(data))
					}
					bad := append([]byte(nil), data...)
					switch damage {
					case "truncate":
						if v.Inline {
							t.Skip("an inline value cut short is a corrupt manifest (its data and size disagree)")
						}
						bad = bad[:len(bad)-1]
					default:
						bad[len(bad)/2] ^= 0x10
					}
					tamper(t, b, domain, v, string(bad))
					want := "" // any ErrIntegrity
					if damage == "flip-sha256-matched" {
						sum := sha256.Sum256(bad)
						RewriteEntry(t, b, domain, "k", func(e *format.Entry) { e.SHA256 = hex.EncodeToString(sum[:]) })
						want = "crc32c"
					}
					_, _, err := newStore(b, nil).ReadAll(tctx(t), domain, "k")
					if !errors.Is(err, objstore.ErrIntegrity) || !strings.Contains(err.Error(), want) {
						t.Fatalf("read after %s: err = %v, want ErrIntegrity naming %q", damage, err, want)
					}
				})
			}
		}
	}
}

// entryOf returns key's entry in domain's manifest, which has no shards.
func entryOf(t *testing.T, b driver.Backend, domain, key string) format.Entry {
	t.Helper()
	m, err := format.ReadManifest(tctx(t), b, domain)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := m.Keys[key]
	if !ok || len(m.Shards) > 0 {
		t.Fatalf("key %q not in the overlay of %q's manifest", key, domain)
	}
	return e
}

// RewriteEntry changes key's entry (in the overlay) of domain's manifest
// behind every Store's back, for tests that damage what a store records.
func RewriteEntry(t *testing.T, b driver.Backend, domain, key string, change func(*format.Entry)) {
	t.Helper()
	m, err := format.ReadManifest(tctx(t), b, domain)
	if err != nil {
		t.Fatal(err)
	}
	e := m.Keys[key]
	change(&e)
	m.Keys[key] = e
	enc, err := format.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(tctx(t), format.ManifestKey(domain), strings.NewReader(string(enc)), int64(len(enc)), driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
}
