package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// sampleManifest returns a manifest as a long-running domain has one: a
// full commit log, inline values, a tombstone and shards.
func sampleManifest() *Manifest {
	t0 := time.Date(2026, 12, 2, 18, 0, 0, 123456789, time.UTC)
	m := &Manifest{Domain: "jobs/nightly", Highest: 7, Seq: 100, Keys: map[string]Entry{}}
	for i := range 64 {
		e := LogEntry{Seq: uint64(37 + i), ID: fmt.Sprintf("%032x", i), Token: 7, Holder: "host-1/4242", Time: t0.Add(time.Duration(i) * time.Millisecond)}
		e.SetKeys([]string{fmt.Sprintf("out/part-%d.csv", i), "b"}, nil)
		if i%5 == 0 {
			e.Attempt = fmt.Sprintf("%032x", 1000+i)
			e.SetKeys(nil, []string{"gone"})
		}
		m.Log = append(m.Log, e)
	}
	m.Last, m.Raised = m.Log[63], m.Log[0]
	for i := range 10 {
		k := fmt.Sprintf("out/part-%d.csv", i)
		data := bytes.Repeat([]byte{byte('a' + i)}, 1000+i)
		e := Entry{Version: VersionKey(m.Domain, k, 7, fmt.Sprintf("%032x", i)), Size: int64(len(data)), SHA256: strings.Repeat("ab", 32), Token: 7, Committed: t0, Inline: true, Data: data}
		if i%2 == 0 { // and the others as written before entries had CRCs
			e.CRC32C, e.CRC32 = fmt.Sprintf("%08x", 0xc1d04330+i), fmt.Sprintf("%08x", 0xe8b7be43-i)
		}
		m.Keys[k] = e
	}
	m.Keys["gone"] = Entry{Deleted: true, Token: 7, Committed: t0.Add(time.Second)}
	m.Shards = []ShardRef{{Prefix: "0", Object: "jobs/nightly/_fence/s/0.json", Count: 300}, {Prefix: "1", Object: "jobs/nightly/_fence/s/1.json", Count: 290}}
	return m
}

// Encode writes exactly what json.Marshal writes, followed by a
// newline, whether it takes its own path or falls back to
// encoding/json: the manifest's bytes never depend on which.
func TestEncodeMatchesJSON(t *testing.T) {
	type variant struct {
		name   string
		change func(m *Manifest)
	}
	variants := []variant{
		{"as written", func(*Manifest) {}},
		{"no shards", func(m *Manifest) { m.Shards = nil; delete(m.Keys, "gone") }},
		{"empty shards", func(m *Manifest) { m.Shards = []ShardRef{} }},
		{"no inline values", func(m *Manifest) {
			for k, e := range m.Keys {
				e.Inline, e.Data = false, nil
				m.Keys[k] = e
			}
		}},
		{"no crcs", func(m *Manifest) {
			for k, e := range m.Keys {
				e.CRC32C, e.CRC32 = "", ""
				m.Keys[k] = e
			}
		}},
		{"packed values", func(m *Manifest) {
			pack := PackObject(m.Domain, 7, fmt.Sprintf("%032x", 9), []byte("pack"))
			var off int64
			for _, k := range []string{"out/part-1.csv", "out/part-3.csv", "out/part-5.csv"} {
				e := m.Keys[k]
				e.Inline, e.Data, e.Pack, e.Offset = false, nil, pack, off
				off += e.Size
				m.Keys[k] = e
			}
			m.Shards[1].Packed = true
		}},
		{"crc32c alone", func(m *Manifest) { e := m.Keys["out/part-0.csv"]; e.CRC32 = ""; m.Keys["out/part-0.csv"] = e }},
		{"crc32 alone", func(m *Manifest) { e := m.Keys["out/part-0.csv"]; e.CRC32C = ""; m.Keys["out/part-0.csv"] = e }},
		{"nil keys and log", func(m *Manifest) { m.Keys, m.Log = nil, nil }},
		{"empty keys and log", func(m *Manifest) { m.Keys, m.Log = map[string]Entry{}, []LogEntry{} }},
		{"zero raised_by", func(m *Manifest) { m.Raised = LogEntry{} }},
		{"raised_by with only empty key lists", func(m *Manifest) { m.Raised = LogEntry{PutKeys: []string{}} }},
		{"raised_by with only a UTC zero time", func(m *Manifest) { m.Raised = LogEntry{Time: time.Time{}.UTC()} }},
		{"zero last_commit", func(m *Manifest) { m.Last = LogEntry{} }},
		{"empty data", func(m *Manifest) { m.Keys["e"] = Entry{Version: "v", Inline: true, Data: []byte{}} }},
		{"truncated keys", func(m *Manifest) { m.Log[3].KeysTruncated = true }},
		{"whole-second time", func(m *Manifest) { m.Log[1].Time = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"millisecond time", func(m *Manifest) { m.Log[1].Time = time.Date(2026, 1, 1, 0, 0, 0, 5e6, time.UTC) }},
		{"monotonic time", func(m *Manifest) { m.Log[1].Time = time.Now().UTC() }},
		{"local time", func(m *Manifest) { m.Log[1].Time = time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 3600)) }},
		{"zero-offset zone", func(m *Manifest) { m.Log[1].Time = time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 0)) }},
		{"year 0", func(m *Manifest) { m.Log[1].Time = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"year 9999", func(m *Manifest) { m.Log[1].Time = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC) }},
		{"keys committed at one instant in two zones", func(m *Manifest) {
			// The entries before it share their time: its encoding is
			// not copied from theirs.
			e := m.Keys["out/part-5.csv"]
			e.Committed = e.Committed.In(time.FixedZone("X", 3600))
			m.Keys["out/part-5.csv"] = e
		}},
		{"keys committed at two times", func(m *Manifest) {
			e := m.Keys["out/part-5.csv"]
			e.Committed = e.Committed.Add(time.Nanosecond)
			m.Keys["out/part-5.csv"] = e
		}},
		{"max uint64", func(m *Manifest) { m.Highest, m.Seq, m.Log[0].Token = ^uint64(0), ^uint64(0), ^uint64(0) }},
		{"negative counts", func(m *Manifest) { m.Log[2].Puts, m.Shards[0].Count = -1, -5 }},
	}
	for _, s := range []string{"a<b", "a>b", "a&b", `a"b`, `a\b`, "a\nb", "a\tb", "a\x00b", "a\x7fb", "a\bb", "a\fb", "ünï", "a\u2028b", "a\u2029b", "\xff", "a\xc3", "~ !#$%'()*+,-./:;=?@[]^_`{|}"} {
		variants = append(variants,
			variant{fmt.Sprintf("holder %q", s), func(m *Manifest) { m.Log[5].Holder = s }},
			variant{fmt.Sprintf("key %q", s), func(m *Manifest) { m.Keys[s] = m.Keys["gone"] }},
			variant{fmt.Sprintf("put key %q", s), func(m *Manifest) { m.Log[6].PutKeys = []string{s} }},
			variant{fmt.Sprintf("domain %q", s), func(m *Manifest) { m.Domain = s }},
			variant{fmt.Sprintf("shard object %q", s), func(m *Manifest) { m.Shards[1].Object = s }},
			variant{fmt.Sprintf("version %q", s), func(m *Manifest) { e := m.Keys["out/part-1.csv"]; e.Version = s; m.Keys["out/part-1.csv"] = e }},
			variant{fmt.Sprintf("crc32c %q", s), func(m *Manifest) { e := m.Keys["out/part-2.csv"]; e.CRC32C = s; m.Keys["out/part-2.csv"] = e }},
		)
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			m := sampleManifest()
			v.change(m)
			got, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
			if !bytes.Equal(got, want) {
				t.Fatalf("Encode differs from json.Marshal:\n got %s\nwant %s", got, want)
			}
			if cap(got) != len(got) {
				t.Fatalf("Encode returned %d bytes in a slice of capacity %d; want exact", len(got), cap(got))
			}
		})
	}
}

// Encode fails, as json.Marshal does, on a time RFC 3339 cannot write.
func TestEncodeRefusesYear10000(t *testing.T) {
	m := sampleManifest()
	m.Log[1].Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := Encode(m); err == nil || !strings.Contains(err.Error(), "year outside of range") {
		t.Fatalf("Encode = %v; want the year refused", err)
	}
}

// Encoding a manifest of 64 log entries and 11 keys takes two
// allocations (the result, and the sorted keys), not one per timestamp
// and per field.
func TestEncodeAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop the scratch buffer at random")
	}
	m := sampleManifest()
	Encode(m) // fill the scratch buffer's pool
	if n := testing.AllocsPerRun(100, func() { Encode(m) }); n > 2 {
		t.Fatalf("Encode allocates %.1f times; want at most 2", n)
	}
}
