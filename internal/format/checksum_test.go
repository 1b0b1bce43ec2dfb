package format

import (
	"errors"
	"strings"
	"testing"
)

// A manifest entry's crc32c and crc32 are optional; when present each is
// 8 lower-case hex digits, and anything else refuses the manifest (and a
// shard) with a reason naming the key and the field. A tombstone holds
// neither.
func TestEntryCRCsChecked(t *testing.T) {
	const sum = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
	entry := func(crcs string) string {
		return `{"version":"d/_fence/v/k@00000000000000000042-ab","size":1,"sha256":"` + sum + `"` + crcs + `,"token":42}`
	}
	manifest := func(crcs string) string {
		return `{"format":"fence.manifest/v1","domain":"d","highest_token":42,"seq":2,"keys":{"k":` + entry(crcs) + `},"log":[]}`
	}
	shard := func(crcs string) string {
		return `{"format":"fence.shard/v1","domain":"d","prefix":"","keys":{"k":` + entry(crcs) + `}}`
	}
	for _, tc := range []struct {
		name, crcs string
		bad        string // the field named in the refusal, "" when accepted
	}{
		{"none", ``, ""},
		{"both", `,"crc32c":"c1d04330","crc32":"e8b7be43"`, ""},
		{"crc32c alone", `,"crc32c":"c1d04330"`, ""},
		{"crc32 alone", `,"crc32":"e8b7be43"`, ""},
		{"empty", `,"crc32c":"","crc32":""`, ""},
		{"crc32c not hex", `,"crc32c":"c1d0433g","crc32":"e8b7be43"`, "crc32c"},
		{"crc32c short", `,"crc32c":"1d04330","crc32":"e8b7be43"`, "crc32c"},
		{"crc32c long", `,"crc32c":"0c1d04330","crc32":"e8b7be43"`, "crc32c"},
		{"crc32c upper case", `,"crc32c":"C1D04330","crc32":"e8b7be43"`, "crc32c"},
		{"crc32 not hex", `,"crc32c":"c1d04330","crc32":"e8b7be4 "`, "crc32"},
		{"crc32 with 0x", `,"crc32c":"c1d04330","crc32":"0xe8b7be43"`, "crc32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Decode("d", "d/_fence/manifest.json", []byte(manifest(tc.crcs)))
			checkRefusal(t, "manifest", err, tc.bad)
			if err == nil {
				// Accepted fields survive a round trip through Encode.
				enc, err := Encode(m)
				if err != nil {
					t.Fatal(err)
				}
				m2, err := Decode("d", "d/_fence/manifest.json", enc)
				if err != nil || m2.Keys["k"].CRC32C != m.Keys["k"].CRC32C || m2.Keys["k"].CRC32 != m.Keys["k"].CRC32 {
					t.Fatalf("round trip: %v, %+v, want %+v", err, m2.Keys["k"], m.Keys["k"])
				}
			}
			data := []byte(shard(tc.crcs))
			ref := ShardRef{Prefix: "", Object: ShardObject("d", 42, "ab", data), Count: 1}
			_, err = DecodeShard(&Manifest{Domain: "d", Highest: 42}, ref, data)
			checkRefusal(t, "shard", err, tc.bad)
		})
	}
	// A field of the wrong JSON type is refused by the decoder itself,
	// which names the field.
	_, err := Decode("d", "d/_fence/manifest.json", []byte(manifest(`,"crc32c":"c1d04330","crc32":3904355907`)))
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "crc32") {
		t.Fatalf("crc32 as a number: %v, want it refused naming crc32", err)
	}
	tomb := `{"format":"fence.manifest/v2","domain":"d","highest_token":3,"seq":9,"keys":{"gone":{"version":"","size":0,"sha256":"","crc32c":"00000000","token":3,"deleted":true}},"shards":[{"prefix":"","object":"d/_fence/s/` + sum + `.json","count":0}],"log":[]}`
	_, err = Decode("d", "d/_fence/manifest.json", []byte(tomb))
	if !errors.As(err, &ce) || !strings.Contains(ce.Reason, `key "gone": a tombstone names a version`) {
		t.Fatalf("tombstone with a crc32c: %v, want it refused", err)
	}
}

// checkRefusal checks err of decoding a what whose entry of key "k" has
// a malformed field bad ("" for none).
func checkRefusal(t *testing.T, what string, err error, bad string) {
	t.Helper()
	if bad == "" {
		if err != nil {
			t.Fatalf("%s refused: %v", what, err)
		}
		return
	}
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("%s accepted, or refused with %v; want a *CorruptError", what, err)
	}
	if want := `key "k": ` + bad + ` "`; !strings.Contains(ce.Reason, want) {
		t.Fatalf("%s refused with %q; want a reason with %q", what, err, want)
	}
}
