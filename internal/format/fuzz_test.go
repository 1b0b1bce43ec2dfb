package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/fencedstore/fence/rules"
)

// FuzzDecodeManifest: the decoder never panics, refuses with a
// *CorruptError, and whatever it accepts re-encodes, to the bytes
// json.Marshal writes, as a manifest it accepts again, unchanged.
func FuzzDecodeManifest(f *testing.F) {
	f.Add([]byte(`{"format":"fence.manifest/v1","domain":"d","highest_token":42,"seq":2,"last_commit":{"seq":2,"id":"ab","token":42},"keys":{"k":{"version":"d/_fence/v/k@00000000000000000042-ab","size":1,"sha256":"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb","token":42}},"log":[{"seq":1,"id":"aa","token":41},{"seq":2,"id":"ab","token":42}]}`))
	f.Add([]byte(`{"format":"fence.manifest/v2","domain":"d","highest_token":3,"seq":9,"keys":{"gone":{"version":"","size":0,"sha256":"","token":3,"deleted":true}},"shards":[{"prefix":"0","object":"d/_fence/s/9cdc59ac357a8e83afe0861384ef840b20b92715009119f7692d3f837aa33a41.json","count":300},{"prefix":"1","object":"d/_fence/s/5be08c9684a1d25efcee09318204824278b08bbfb4aef973ffefd0b9d7478313.json","count":290}],"log":[]}`))
	f.Add([]byte(`{"format":"fence.manifest/v1","domain":"d","highest_token":42,"seq":2,"last_commit":{"seq":2,"id":"ab","token":42,"puts":2,"deletes":1,"put_keys":["a","b/c"],"deleted_keys":["x"]},"keys":{},"log":[{"seq":1,"id":"aa","token":41,"put_keys":[]},{"seq":2,"id":"ab","token":42,"puts":20,"put_keys":["a"],"keys_truncated":true}]}`))
	f.Add([]byte(`{"format":"fence.manifest/v1","domain":"d","highest_token":1,"seq":1,"last_commit":{"seq":1,"puts":1,"put_keys":["_fence/x"]},"keys":{},"log":[]}`))
	f.Add([]byte(`{"format":"fence.manifest/v3","domain":"d","highest_token":42,"seq":2,"last_commit":{"seq":2,"id":"ab","token":42},"keys":{"k":{"version":"d/_fence/v/k@00000000000000000042-ab","size":1,"sha256":"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb","token":42,"inline":true,"data":"YQ=="},"e":{"version":"d/_fence/v/e@00000000000000000042-ab","size":0,"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","token":42,"inline":true,"data":""}},"log":[]}`))
	f.Add([]byte(`{"format":"fence.manifest/v1","domain":"d","highest_token":42,"seq":2,"keys":{"k":{"version":"d/_fence/v/k@00000000000000000042-ab","size":1,"sha256":"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb","token":42,"inline":true,"data":"YQ=="}},"log":[]}`))
	f.Add([]byte(`{"format":"fence.manifest/v3","domain":"d","highest_token":42,"seq":2,"last_commit":{"seq":2,"id":"ab","token":42},"keys":{"k":{"version":"d/_fence/v/k@00000000000000000042-ab","size":1,"sha256":"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb","crc32c":"c1d04330","crc32":"e8b7be43","token":42,"inline":true,"data":"YQ=="},"l":{"version":"d/_fence/v/l@00000000000000000042-ab","size":1,"sha256":"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb","crc32c":"c1d04330","token":42}},"log":[]}`))
	f.Add([]byte(``))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"format":"fence.manifest/v1","domain":"d","highest_token":0,"seq":1}`))
	f.Add([]byte(`{"format":"fence.manifest/v1","domain":"d","highest_token":18446744073709551615,"seq":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSameRefusal(t, data)
		m, err := Decode("d", "d/_fence/manifest.json", data)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Key != "d/_fence/manifest.json" {
				t.Fatalf("error %v is not a *CorruptError naming the object", err)
			}
			return
		}
		if m.Highest == 0 {
			t.Fatal("accepted a manifest with highest token 0")
		}
		enc, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if want, err := json.Marshal(m); err != nil || !bytes.Equal(enc, append(want, '\n')) {
			t.Fatalf("Encode differs from json.Marshal (%v):\n got %s\nwant %s", err, enc, want)
		}
		m2, err := Decode("d", "d/_fence/manifest.json", enc)
		if err != nil {
			t.Fatalf("re-encoded manifest refused: %v", err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip changed the manifest:\n%+v\n%+v", m, m2)
		}
	})
}

// FuzzValidateKey: a valid key round-trips through its version key; an
// invalid one is an *InvalidError.
func FuzzValidateKey(f *testing.F) {
	for _, s := range []string{"k", "a/b/c.csv", "", "/a", "a/", "a//b", "a/../b", "./a", "a\x00b", "_fence/x", "k@00000000000000000001-x", "ünï cödé/ 1", "a@b"} {
		f.Add(s, uint64(42))
	}
	f.Fuzz(func(t *testing.T, key string, token uint64) {
		err := rules.ValidateKey(key)
		if err != nil {
			var ie *rules.InvalidError
			if !errors.As(err, &ie) || ie.What != "key" {
				t.Fatalf("rules.ValidateKey(%q) = %v, want an *rules.InvalidError about the key", key, err)
			}
			return
		}
		if rules.ValidateToken(token) != nil {
			return
		}
		vk := VersionKey("dom/ain", key, token, "abc123")
		d, k, tok, suf, err := ParseVersionKey(vk)
		if err != nil || d != "dom/ain" || k != key || tok != token || suf != "abc123" {
			t.Fatalf("ParseVersionKey(%q) = %q %q %d %q %v", vk, d, k, tok, suf, err)
		}
	})
}

// FuzzParseVersionKey: parsing never panics, and what parses rebuilds to
// the same object key.
func FuzzParseVersionKey(f *testing.F) {
	for _, s := range []string{"d/_fence/v/k@00000000000000000042-ab", "d/_fence/v/a/b@00000000000000000001-x", "_fence/v/k@00000000000000000042-ab", "d/_fence/v/k@0000000000000000004-ab", "d/_fence/v/k@99999999999999999999-ab", "d/_fence/v/k@00000000000000000000-ab"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, k, tok, suf, err := ParseVersionKey(s)
		if err != nil {
			return
		}
		if got := VersionKey(d, k, tok, suf); got != s {
			t.Fatalf("ParseVersionKey(%q) rebuilds to %q", s, got)
		}
	})
}

// FuzzDecodeShard: decoding a shard never panics, refuses with a
// *CorruptError naming the shard, and whatever it accepts holds
// only valid live keys of the named prefix, and re-encodes to the same
// content address.
func FuzzDecodeShard(f *testing.F) {
	const sum = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
	for _, s := range []struct {
		data   string
		prefix string
		count  int
	}{
		{`{"format":"fence.shard/v1","domain":"d","prefix":"","keys":{"k":{"version":"d/_fence/v/k@00000000000000000042-ab","size":1,"sha256":"` + sum + `","token":42}}}`, "", 1},
		{`{"format":"fence.shard/v1","domain":"d","prefix":"","keys":{"k":{"version":"d/_fence/v/k@00000000000000000042-ab","size":1,"sha256":"` + sum + `","crc32c":"c1d04330","crc32":"e8b7be43","token":42}}}`, "", 1},
		{`{"format":"fence.shard/v1","domain":"d","prefix":"0","keys":{}}`, "0", 0},
		{`{"format":"fence.shard/v1","domain":"d","prefix":"1","keys":{"gone":{"token":3,"deleted":true}}}`, "1", 1},
		{`{"format":"fence.shard/v1","domain":"e","prefix":"","keys":{}}`, "", 0},
		{``, "", 0},
		{`{}`, "", 0},
	} {
		f.Add([]byte(s.data), s.prefix, s.count)
	}
	m := &Manifest{Domain: "d", Highest: 100}
	f.Fuzz(func(t *testing.T, data []byte, prefix string, count int) {
		ref := ShardRef{Prefix: prefix, Object: ShardObject(m.Domain, 7, "fuzz", data), Count: count}
		d, err := DecodeShard(m, ref, data)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Key != ref.Object {
				t.Fatalf("error %v is not a *CorruptError naming the shard", err)
			}
			return
		}
		if d.Domain != m.Domain || d.Prefix != prefix || len(d.Keys) != count {
			t.Fatalf("accepted a shard that does not match its reference: %+v, %+v", d, ref)
		}
		for k, e := range d.Keys {
			if rules.ValidateKey(k) != nil || e.Deleted || e.Token == 0 || e.Token > m.Highest {
				t.Fatalf("accepted an entry the manifest could not hold: %q %+v", k, e)
			}
		}
		// A shard is written in its canonical encoding; that encoding
		// decodes to the same shard under its own address.
		enc, ref2, err := EncodeShard(d, 7, "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		d2, err := DecodeShard(m, ref2, enc)
		if err != nil {
			t.Fatalf("canonical encoding refused: %v", err)
		}
		if !reflect.DeepEqual(d, d2) {
			t.Fatalf("round trip changed the shard:\n%+v\n%+v", d, d2)
		}
	})
}
