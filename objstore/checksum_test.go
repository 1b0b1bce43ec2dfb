package objstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"
	"strings"
	"testing"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

// crcsOf returns the CRC-32C and CRC-32 of data as entries record them.
func crcsOf(data []byte) (string, string) {
	return fmt.Sprintf("%08x", crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))), fmt.Sprintf("%08x", crc32.ChecksumIEEE(data))
}

// readers are the ways a version's bytes reach a reader: kept inline, a
// version object read directly (and then kept in the version cache),
// and one read ahead of its reader (over 1 MiB).
var readers = []struct {
	name string
	size int
	opts objstore.Options
}{
	{"inline", 100, objstore.Options{}},
	{"direct", 64 << 10, objstore.Options{InlineMax: -1}},
	{"readahead", 2<<20 + 1, objstore.Options{InlineMax: -1}},
}

// Every commit records the CRC-32C and CRC-32 of each value beside its
// SHA-256; a read checks them, each of the two, and not SHA-256 (an
// entry whose sha256 alone is wrong reads), unless VerifySHA256 is set.
// An entry with only one CRC is checked by it and by SHA-256.
func TestReadChecksCRCs(t *testing.T) {
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			ctx := context.Background()
			mem := memstore.New()
			w := objstore.New(mem, &rd.opts)
			data := make([]byte, rd.size)
			rand.Read(data)
			if _, err := w.Put(ctx, "d", "k", 1, bytes.NewReader(data), int64(len(data))); err != nil {
				t.Fatal(err)
			}
			m, _ := format.ReadManifest(ctx, mem, "d")
			e := m.Keys["k"]
			if c, i := crcsOf(data); e.CRC32C != c || e.CRC32 != i || e.Inline != (rd.name == "inline") {
				t.Fatalf("entry has crc32c %q, crc32 %q, inline %v; want crc32c %s, crc32 %s", e.CRC32C, e.CRC32, e.Inline, c, i)
			}
			read := func(opts objstore.Options) error {
				t.Helper()
				got, _, err := objstore.New(mem, &opts).ReadAll(ctx, "d", "k")
				if err == nil && !bytes.Equal(got, data) {
					t.Fatal("read other bytes without an error")
				}
				return err
			}
			sha := objstore.Options{InlineMax: rd.opts.InlineMax, VerifySHA256: true}
			for _, tc := range []struct {
				name     string
				change   func(*format.Entry)
				opts     objstore.Options
				refusing string // "" for a read that succeeds
			}{
				{"as written", func(*format.Entry) {}, rd.opts, ""},
				{"as written, VerifySHA256", func(*format.Entry) {}, sha, ""},
				{"other sha256", func(e *format.Entry) { e.SHA256 = strings.Repeat("0", 64) }, rd.opts, ""},
				{"other sha256, VerifySHA256", func(e *format.Entry) { e.SHA256 = strings.Repeat("0", 64) }, sha, "sha256"},
				{"other crc32c", func(e *format.Entry) { e.CRC32C = flipHex(e.CRC32C) }, rd.opts, "crc32c"},
				{"other crc32c, VerifySHA256", func(e *format.Entry) { e.CRC32C = flipHex(e.CRC32C) }, sha, "crc32c"},
				{"other crc32", func(e *format.Entry) { e.CRC32 = flipHex(e.CRC32) }, rd.opts, "crc32 "},
				{"crc32c alone, other sha256", func(e *format.Entry) { e.CRC32, e.SHA256 = "", strings.Repeat("0", 64) }, rd.opts, "sha256"},
				{"crc32 alone, other sha256", func(e *format.Entry) { e.CRC32C, e.SHA256 = "", strings.Repeat("0", 64) }, rd.opts, "sha256"},
				{"crc32c alone, other crc32c", func(e *format.Entry) { e.CRC32, e.CRC32C = "", flipHex(e.CRC32C) }, rd.opts, "crc32c"},
				{"no crcs", func(e *format.Entry) { e.CRC32C, e.CRC32 = "", "" }, rd.opts, ""},
				{"no crcs, other sha256", func(e *format.Entry) { e.CRC32C, e.CRC32, e.SHA256 = "", "", strings.Repeat("0", 64) }, rd.opts, "sha256"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					objstoretest.RewriteEntry(t, mem, "d", "k", func(x *format.Entry) { *x = e; tc.change(x) })
					err := read(tc.opts)
					switch {
					case tc.refusing == "" && err != nil:
						t.Fatalf("read: %v", err)
					case tc.refusing != "" && (!errors.Is(err, objstore.ErrIntegrity) || !strings.Contains(err.Error(), tc.refusing)):
						t.Fatalf("read: %v; want ErrIntegrity naming %q", err, tc.refusing)
					}
				})
			}
		})
	}
}

// flipHex changes the last hex digit of s.
func flipHex(s string) string {
	last := "1"
	if strings.HasSuffix(s, "1") {
		last = "2"
	}
	return s[:len(s)-1] + last
}

// A version kept in the version cache is checked again on every read,
// against the entry of the manifest read then: its bytes do not outlive
// a manifest that records other checksums.
func TestCachedVersionChecked(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	s := objstore.New(mem, &objstore.Options{InlineMax: -1})
	data := []byte(strings.Repeat("cached ", 100))
	if _, err := s.Put(ctx, "d", "k", 1, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ReadAll(ctx, "d", "k"); err != nil {
		t.Fatal(err)
	}
	objstoretest.RewriteEntry(t, mem, "d", "k", func(e *format.Entry) { e.CRC32 = flipHex(e.CRC32) })
	if _, _, err := s.ReadAll(ctx, "d", "k"); !errors.Is(err, objstore.ErrIntegrity) {
		t.Fatalf("cached read against other crcs: %v, want ErrIntegrity", err)
	}
}

// An inline value recorded without CRCs (by a build before them) gets
// them when a commit moves it to its version object, if its bytes match
// its SHA-256.
func TestSpillAddsCRCs(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	data := []byte(strings.Repeat("old ", 50))
	if _, err := objstore.New(mem, nil).Put(ctx, "d", "old", 1, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	objstoretest.RewriteEntry(t, mem, "d", "old", func(e *format.Entry) { e.CRC32C, e.CRC32 = "", "" })
	s := objstore.New(mem, &objstore.Options{InlineBudget: 300})
	if _, err := s.Put(ctx, "d", "new", 1, strings.NewReader(strings.Repeat("n", 200)), 200); err != nil {
		t.Fatal(err)
	}
	m, _ := format.ReadManifest(ctx, mem, "d")
	e := m.Keys["old"]
	c, i := crcsOf(data)
	if e.Inline || e.CRC32C != c || e.CRC32 != i {
		t.Fatalf("spilled entry has crc32c %q, crc32 %q, inline %v; want it out of the manifest with crc32c %s and crc32 %s", e.CRC32C, e.CRC32, e.Inline, c, i)
	}
	got, _, err := s.ReadAll(ctx, "d", "old")
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read spilled value: %q, %v", got, err)
	}
}

// The two CRCs' generator polynomials have no common factor, so together
// they are one check of degree 64 (docs/manifest.md, "Checksums"): a
// change passes both only if their product divides it, and no burst of
// up to 64 bits does.
func TestCRCPolynomialsCoprime(t *testing.T) {
	// poly returns the generator of a CRC from hash/crc32's reversed
	// representation: x^32 plus the bit-reversed constant.
	poly := func(reversed uint32) uint64 {
		var p uint64
		for i := range 32 {
			if reversed&(1<<i) != 0 {
				p |= 1 << (31 - i)
			}
		}
		return p | 1<<32
	}
	deg := func(p uint64) int { return 63 - bits.LeadingZeros64(p) }
	mod := func(a, b uint64) uint64 {
		for a != 0 && deg(a) >= deg(b) {
			a ^= b << (deg(a) - deg(b))
		}
		return a
	}
	a, b := poly(crc32.Castagnoli), poly(crc32.IEEE)
	for b != 0 {
		a, b = b, mod(a, b)
	}
	if a != 1 {
		t.Fatalf("the CRC-32C and CRC-32 polynomials share the factor %#x", a)
	}
}

// A plain copy sends a version's bytes through the same checks: a
// version object with a byte flipped, under an entry whose sha256 matches
// the flipped bytes (so that only the CRCs tell), is not copied.
func TestPlainCopyChecked(t *testing.T) {
	ctx := context.Background()
	mem := memstore.New()
	data := bytes.Repeat([]byte("plain "), 10000)
	c, err := objstore.New(mem, &objstore.Options{InlineMax: -1}).Put(ctx, "d", "k", 1, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), data...)
	bad[100] ^= 1
	if _, err := mem.Put(ctx, c.Versions[0].Object, bytes.NewReader(bad), int64(len(bad)), driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(bad)
	objstoretest.RewriteEntry(t, mem, "d", "k", func(e *format.Entry) { e.SHA256 = hex.EncodeToString(sum[:]) })
	err = objstore.New(mem, &objstore.Options{InlineMax: -1, PlainCopies: true}).SyncPlain(ctx, "d")
	// The copy's conditional update retries a failed body as it would a
	// failed request, and its error then says only that retries ran out
	// (internal/cas); what matters here is that nothing was copied.
	if err == nil {
		t.Fatal("SyncPlain copied a flipped version")
	}
	if _, err := mem.Head(ctx, "d/k"); !errors.Is(err, driver.ErrNotFound) {
		t.Fatalf("the plain copy was written: %v", err)
	}
}
