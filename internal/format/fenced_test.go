package format

import (
	"bytes"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/rules"
)

// A record's key round-trips, and keys of higher refusing tokens sort
// first, whatever the refused token and the id.
func TestFencedKeyOrder(t *testing.T) {
	names := []FencedName{
		{Domain: "d", Token: 5, FencedBy: 6, ID: "zz"},
		{Domain: "d", Token: 1, FencedBy: 1000, ID: "aa"},
		{Domain: "d", Token: 7, FencedBy: 7, ID: "c"},
		{Domain: "d", Token: 99, FencedBy: rules.MaxToken, ID: "b"},
		{Domain: "d", Token: 1, FencedBy: 2, ID: "a"},
	}
	var keys []string
	for _, n := range names {
		k := FencedKey(n)
		got, err := ParseFencedKey(k)
		if err != nil || got != n {
			t.Fatalf("ParseFencedKey(%q) = %+v, %v; want %+v", k, got, err, n)
		}
		if !strings.HasPrefix(k, FencedPrefix("d")) {
			t.Errorf("%q is not under %q", k, FencedPrefix("d"))
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var by []uint64
	for _, k := range keys {
		n, _ := ParseFencedKey(k)
		by = append(by, n.FencedBy)
	}
	if !sort.SliceIsSorted(by, func(i, j int) bool { return by[i] > by[j] }) {
		t.Errorf("in key order the refusing tokens are %v, want newest first", by)
	}
}

// ParseFencedKey refuses what FencedKey cannot produce.
func TestParseFencedKeyRefuses(t *testing.T) {
	good := FencedKey(FencedName{Domain: "d", Token: 5, FencedBy: 6, ID: "ab"})
	for _, k := range []string{
		"",
		"d/_fence/fenced/x.json",
		strings.TrimSuffix(good, ".json"),
		strings.Replace(good, "-ab.json", "-.json", 1),
		strings.Replace(good, "-ab.json", "-a.b.json", 1),
		"_fence/fenced/" + good[len("d/_fence/fenced/"):],
		FencedKey(FencedName{Domain: "d", Token: 6, FencedBy: 5, ID: "ab"}), // refused by a lower token
		FencedKey(FencedName{Domain: "d", Token: 0, FencedBy: 5, ID: "ab"}),
		FencedKey(FencedName{Domain: "d", Token: 0, FencedBy: 0, ID: "ab"}),
		"d/_fence/fenced/0000000000000000000a-00000000000000000005-ab.json",
		"d/_fence/v/k@00000000000000000001-ab",
		"a//b/_fence/fenced/" + good[len("d/_fence/fenced/"):],
	} {
		if n, err := ParseFencedKey(k); err == nil {
			t.Errorf("ParseFencedKey(%q) = %+v, want an error", k, n)
		} else if !errors.Is(err, rules.ErrInvalid) {
			t.Errorf("ParseFencedKey(%q) = %v, want an *InvalidError", k, err)
		}
	}
}

func sampleRecord() (FencedName, FencedRecord) {
	n := FencedName{Domain: "jobs/d", Token: 5, FencedBy: 6, ID: "ab12"}
	return n, FencedRecord{Domain: n.Domain, Token: 5, FencedBy: 6, Reason: FencedBelow, Holder: "worker-a", CommitID: "0123456789abcdef0123456789abcdef",
		Time: time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC), Puts: 2, Deletes: 1,
		PutKeys: []FencedPut{{"a.csv", 4}, {"b.bin", 10 << 20}}, DeletedKeys: []string{"old"}}
}

// A record round-trips, and one that does not match its key, or that
// EncodeFenced could not have written, is a *CorruptError.
func TestFencedRecordRoundTrip(t *testing.T) {
	n, r := sampleRecord()
	b, err := EncodeFenced(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeFenced(n, FencedKey(n), b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := EncodeFenced(got)
	if !bytes.Equal(b, b2) || got.Format != FencedV1 {
		t.Fatalf("round trip changed the record:\n%s\n%s", b, b2)
	}
	for what, mutate := range map[string]func(*FencedRecord){
		"other domain":     func(r *FencedRecord) { r.Domain = "other" },
		"other token":      func(r *FencedRecord) { r.Token = 4 },
		"other fenced_by":  func(r *FencedRecord) { r.FencedBy = 7 },
		"unknown reason":   func(r *FencedRecord) { r.Reason = "why" },
		"claimed, below":   func(r *FencedRecord) { r.Reason = FencedClaimed },
		"too many keys":    func(r *FencedRecord) { r.Puts = 1 },
		"invalid key":      func(r *FencedRecord) { r.PutKeys[0].Key = "a//b" },
		"size below -1":    func(r *FencedRecord) { r.PutKeys[0].Size = -2 },
		"bad commit id":    func(r *FencedRecord) { r.CommitID = "a b" },
		"negative deletes": func(r *FencedRecord) { r.Deletes = -1; r.DeletedKeys = nil },
	} {
		_, r := sampleRecord()
		mutate(&r)
		b, err := EncodeFenced(r)
		if err != nil {
			t.Fatal(err)
		}
		var ce *CorruptError
		if _, err := DecodeFenced(n, "the-key", b); !errors.As(err, &ce) || ce.Key != "the-key" {
			t.Errorf("%s: DecodeFenced = %v, want a *CorruptError naming the key", what, err)
		}
	}
	for _, data := range []string{"", "{}", `{"format":"fence.fenced/v1"} {}`, `{"format":"fence.fenced/v1","extra":1}`, strings.Repeat(" ", MaxFencedSize+1)} {
		if _, err := DecodeFenced(n, "k", []byte(data)); err == nil {
			t.Errorf("DecodeFenced(%.40q) accepted it", data)
		}
	}
}

// EncodeFenced bounds a record: a long holder is cut, and a record whose
// key names would pass MaxFencedSize keeps its counts without the names.
func TestEncodeFencedBounds(t *testing.T) {
	n, r := sampleRecord()
	r.Holder = strings.Repeat("é", MaxFencedHolder) // 2 bytes each
	long := strings.Repeat("<", rules.MaxKeyLen-2)  // JSON writes each as 6 bytes
	r.Puts, r.Deletes, r.PutKeys, r.DeletedKeys = 1000, 1000, nil, nil
	for i := range LogKeysLimit {
		r.PutKeys = append(r.PutKeys, FencedPut{long + string(rune('a'+i)), 1})
		r.DeletedKeys = append(r.DeletedKeys, long+string(rune('a'+i)))
	}
	b, err := EncodeFenced(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > MaxFencedSize {
		t.Fatalf("encoded %d bytes, over %d", len(b), MaxFencedSize)
	}
	got, err := DecodeFenced(n, "k", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Holder) > MaxFencedHolder || !strings.HasPrefix(r.Holder, got.Holder) || got.Holder == "" {
		t.Errorf("holder of %d bytes kept as %d bytes", len(r.Holder), len(got.Holder))
	}
	if got.PutKeys != nil || got.DeletedKeys != nil || !got.KeysTruncated || got.Puts != 1000 || got.Deletes != 1000 {
		t.Errorf("an oversized record kept %d and %d names (truncated %v, counts %d, %d)", len(got.PutKeys), len(got.DeletedKeys), got.KeysTruncated, got.Puts, got.Deletes)
	}
}

// FuzzParseFencedKey: parsing never panics, and what parses rebuilds to
// the same key.
func FuzzParseFencedKey(f *testing.F) {
	f.Add(FencedKey(FencedName{Domain: "d", Token: 5, FencedBy: 6, ID: "ab"}))
	f.Add(FencedKey(FencedName{Domain: "a/b", Token: rules.MaxToken, FencedBy: rules.MaxToken, ID: "x_y-z"}))
	f.Add("d/_fence/fenced/-.json")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseFencedKey(s)
		if err != nil {
			return
		}
		if got := FencedKey(n); got != s {
			t.Fatalf("ParseFencedKey(%q) rebuilds to %q", s, got)
		}
	})
}

// FuzzDecodeFenced: the decoder never panics, refuses with a
// *CorruptError, and what it accepts re-encodes to a record it accepts
// again, unchanged.
func FuzzDecodeFenced(f *testing.F) {
	n, r := sampleRecord()
	b, _ := EncodeFenced(r)
	f.Add(b)
	f.Add([]byte(`{"format":"fence.fenced/v1","domain":"jobs/d","token":5,"fenced_by":6,"reason":"below","holder":"","time":"2026-12-06T05:00:00Z","puts":0,"deletes":0}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeFenced(n, "k", data)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *CorruptError", err)
			}
			return
		}
		enc, err := EncodeFenced(got)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeFenced(n, "k", enc)
		if err != nil {
			t.Fatalf("re-encoded record refused: %v", err)
		}
		if enc2, _ := EncodeFenced(again); !bytes.Equal(enc, enc2) {
			t.Fatalf("round trip changed the record:\n%s\n%s", enc, enc2)
		}
	})
}
