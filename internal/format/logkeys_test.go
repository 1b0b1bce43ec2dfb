package format

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestSetKeysBounded(t *testing.T) {
	var puts []string
	for i := range LogKeysLimit + 4 {
		puts = append(puts, fmt.Sprintf("k%02d", LogKeysLimit+4-i))
	}
	var e LogEntry
	e.SetKeys(puts, []string{"z", "y"})
	if e.Puts != LogKeysLimit+4 || e.Deletes != 2 || len(e.PutKeys) != LogKeysLimit || !e.KeysTruncated {
		t.Fatalf("SetKeys of %d puts = %+v; want %d names and truncated", len(puts), e, LogKeysLimit)
	}
	if e.PutKeys[0] != "k01" || e.DeletedKeys[0] != "y" || puts[0] != fmt.Sprintf("k%02d", LogKeysLimit+4) {
		t.Fatalf("SetKeys: names %v, %v not sorted, or its input was modified: %v", e.PutKeys, e.DeletedKeys, puts)
	}
	e.SetKeys([]string{"a"}, nil)
	if e.KeysTruncated || e.DeletedKeys != nil || len(e.PutKeys) != 1 {
		t.Fatalf("SetKeys of one put = %+v", e)
	}
}

// The decoder refuses a log entry whose key names cannot be true.
func TestDecodeRefusesBadLogKeys(t *testing.T) {
	const head = `{"format":"fence.manifest/v1","domain":"d","highest_token":1,"seq":1,"keys":{},"log":[`
	for name, entry := range map[string]string{
		"invalid key":      `{"seq":1,"puts":1,"put_keys":["a//b"]}`,
		"reserved segment": `{"seq":1,"deletes":1,"deleted_keys":["_fence/manifest.json"]}`,
		"above the count":  `{"seq":1,"puts":1,"put_keys":["a","b"]}`,
		"above the limit":  `{"seq":1,"puts":100,"put_keys":["` + strings.Repeat(`k","`, LogKeysLimit) + `k"]}`,
	} {
		_, err := Decode("d", "d/_fence/manifest.json", []byte(head+entry+`]}`))
		var ce *CorruptError
		if !errors.As(err, &ce) || !strings.Contains(ce.Reason, "log entry of seq 1") {
			t.Errorf("%s: Decode = %v; want a *CorruptError about the log entry", name, err)
		}
	}
	m, err := Decode("d", "d/_fence/manifest.json", []byte(head+`{"seq":1,"puts":3,"put_keys":["a","b"],"keys_truncated":true}]}`))
	if err != nil || len(m.Log[0].PutKeys) != 2 {
		t.Fatalf("Decode of a valid entry = %+v, %v", m, err)
	}
}
