package format

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPackObjectParses(t *testing.T) {
	attempt := fmt.Sprintf("%032x", 5)
	obj := PackObject("jobs/d", 42, attempt, []byte("two values"))
	if !strings.HasPrefix(obj, PackPrefix("jobs/d")) || !strings.HasSuffix(obj, ".pack") {
		t.Fatalf("pack object %q is not under %q", obj, PackPrefix("jobs/d"))
	}
	n, ok := ParsePackObject("jobs/d", obj)
	if !ok || n.Token != 42 || n.Attempt != attempt || len(n.Sum) != 64 {
		t.Fatalf("ParsePackObject(%q) = %+v, %v", obj, n, ok)
	}
	for _, bad := range []string{
		strings.Replace(obj, "jobs/d/", "jobs/e/", 1),                           // another domain
		strings.TrimSuffix(obj, ".pack") + ".json",                              // not a pack
		strings.Replace(obj, "/_fence/p/", "/_fence/s/", 1),                     // a shard's directory
		strings.Replace(obj, "00000000000000000042", "42", 1),                   // token not padded
		strings.Replace(obj, "00000000000000000042", "00000000000000000000", 1), // token 0
		obj[:len(obj)-len(".pack")-1] + "g.pack",                                // sum not hex
		strings.Replace(obj, attempt, "a/b", 1),                                 // attempt not a suffix
	} {
		if n, ok := ParsePackObject("jobs/d", bad); ok {
			t.Errorf("ParsePackObject(%q) = %+v, want refused", bad, n)
		}
	}
}

// A manifest is v4 while it, or a shard it names, holds a packed entry,
// and a decoder refuses packed entries anywhere an older build would read
// them as version objects.
func TestPackedEntriesNeedV4(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC)
	pack := PackObject("d", 3, fmt.Sprintf("%032x", 1), []byte("x"))
	entry := Entry{Version: VersionKey("d", "k", 3, fmt.Sprintf("%032x", 2)), Size: 1, SHA256: strings.Repeat("ab", 32), Token: 3, Committed: t0, Pack: pack, Offset: 7}
	m := &Manifest{Domain: "d", Highest: 3, Seq: 1, Keys: map[string]Entry{"k": entry}, Last: LogEntry{Seq: 1, ID: fmt.Sprintf("%032x", 2), Token: 3, Time: t0}}
	data, err := Encode(m)
	if err != nil || m.Format != ManifestV4 {
		t.Fatalf("Encode of a manifest with a packed entry: format %q, %v", m.Format, err)
	}
	got, err := Decode("d", "d/_fence/manifest.json", data)
	if err != nil || !reflect.DeepEqual(got.Keys["k"], entry) {
		t.Fatalf("Decode: %+v, %v; want %+v", got.Keys["k"], err, entry)
	}
	refused := func(name, format string, change func(e *Entry)) {
		t.Helper()
		e := entry
		change(&e)
		raw, _ := json.Marshal(&Manifest{Format: format, Domain: "d", Highest: 3, Seq: 1, Keys: map[string]Entry{"k": e}, Last: m.Last})
		if _, err := Decode("d", "d/_fence/manifest.json", raw); err == nil {
			t.Errorf("%s: decoded, want refused as corrupt", name)
		}
	}
	refused("packed entry in v3", ManifestV3, func(*Entry) {})
	refused("packed entry in v1", ManifestV1, func(*Entry) {})
	refused("packed and inline", ManifestV4, func(e *Entry) { e.Inline, e.Data = true, []byte("x") })
	refused("negative offset", ManifestV4, func(e *Entry) { e.Offset = -1 })
	refused("offset without a pack", ManifestV4, func(e *Entry) { e.Pack = "" })
	refused("another domain's pack", ManifestV4, func(e *Entry) { e.Pack = PackObject("e", 3, fmt.Sprintf("%032x", 1), []byte("x")) })
	refused("a shard named as a pack", ManifestV4, func(e *Entry) { e.Pack = ShardObject("d", 3, fmt.Sprintf("%032x", 1), []byte("x")) })

	// A shard with a packed entry is v2, and its reference says so.
	d := &Shard{Domain: "d", Prefix: "", Keys: map[string]Entry{"k": entry}}
	raw, ref, err := EncodeShard(d, 3, fmt.Sprintf("%032x", 4))
	if err != nil || !ref.Packed || d.Format != ShardV2 {
		t.Fatalf("EncodeShard with a packed entry: ref %+v, format %q, %v", ref, d.Format, err)
	}
	withShard := &Manifest{Domain: "d", Highest: 3, Seq: 1, Keys: map[string]Entry{}, Shards: []ShardRef{ref}, Last: m.Last}
	if _, err := Encode(withShard); err != nil || withShard.Format != ManifestV4 {
		t.Fatalf("a manifest naming a packed shard: format %q, %v; want v4", withShard.Format, err)
	}
	if _, err := DecodeShard(withShard, ref, raw); err != nil {
		t.Fatalf("DecodeShard of a v2 shard: %v", err)
	}
	v1 := strings.Replace(string(raw), ShardV2, ShardV1, 1)
	ref1 := ref
	ref1.Object = ShardObject("d", 3, fmt.Sprintf("%032x", 4), []byte(v1))
	if _, err := DecodeShard(withShard, ref1, []byte(v1)); err == nil {
		t.Error("a v1 shard with a packed entry decoded, want refused")
	}
	withShard.Format = ManifestV2
	rawm, _ := json.Marshal(withShard)
	if _, err := Decode("d", "d/_fence/manifest.json", rawm); err == nil {
		t.Error("a v2 manifest naming a packed shard decoded, want refused")
	}
}
