package faults

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/storage"

	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/internal/format"
)

// The records of the emulators, built from what the stores list (GCS
// generations) and from the proxy's wire record (Azurite), without
// servers.

// A version object's generations: a write, a write over it (not a
// deletion), a deletion, and a write after it.
func TestGCSGenerations(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	d := newDomainRecord("d")
	once := format.VersionKey("d", "k0", 1, "a")
	d.addGenerations(once, []*storage.ObjectAttrs{{Generation: 10, Created: at(1)}})
	overwritten := format.VersionKey("d", "k0", 1, "b")
	// Listed out of order; the first was replaced by the second (its
	// time of deletion is the second's creation).
	d.addGenerations(overwritten, []*storage.ObjectAttrs{
		{Generation: 30, Created: at(3)},
		{Generation: 20, Created: at(2), Deleted: at(3)},
	})
	deleted := format.VersionKey("d", "k0", 1, "c")
	d.addGenerations(deleted, []*storage.ObjectAttrs{{Generation: 40, Created: at(4), Deleted: at(5)}})
	again := format.VersionKey("d", "k0", 1, "e")
	d.addGenerations(again, []*storage.ObjectAttrs{
		{Generation: 60, Created: at(6), Deleted: at(7)},
		{Generation: 80, Created: at(8)},
	})
	for k, want := range map[string]int{once: 1, overwritten: 2, deleted: 1, again: 2} {
		if d.versions[k] != want {
			t.Errorf("%s: %d writes, want %d", k, d.versions[k], want)
		}
	}
	if got := d.versionTimes[overwritten]; len(got) != 2 || !got[0].Equal(at(2)) || !got[1].Equal(at(3)) {
		t.Errorf("%s: written at %v, want 2s then 3s", overwritten, got)
	}
	if len(d.deleted) != 2 || !d.deleted[deleted].Equal(at(5)) || !d.deleted[again].Equal(at(7)) {
		t.Errorf("deletions %v, want %s at 5s and %s at 7s only", d.deleted, deleted, again)
	}
}

// manifestBody encodes a manifest of domain d at seq with token, as the
// commit id wrote it.
func manifestBody(t *testing.T, seq, token uint64, id string) []byte {
	t.Helper()
	m := &format.Manifest{Format: format.ManifestV1, Domain: "d", Highest: token, Seq: seq, Keys: map[string]format.Entry{},
		Last: format.LogEntry{Seq: seq, ID: id, Token: token, Holder: "w0"}}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := format.Decode("d", format.ManifestKey("d"), data); err != nil {
		t.Fatalf("the test's manifest does not decode: %v", err)
	}
	return data
}

func TestWireRecord(t *testing.T) {
	const prefix = "/acct/c1/"
	mkey := format.ManifestKey("d")
	v1 := format.VersionKey("d", "k0", 1, "a")
	v2 := format.VersionKey("d", "k0", 2, "b")
	put := func(at int64, key string, status int, body []byte) spec.WireWrite {
		return spec.WireWrite{At: at, Method: http.MethodPut, Path: prefix + key, Status: status, ETag: `"e` + string(rune('0'+at)) + `"`, Body: body}
	}
	lines := []spec.WireWrite{
		put(1, v1, 201, nil),
		put(2, mkey, 201, manifestBody(t, 1, 1, "a")),
		put(3, mkey, 412, nil), // refused: not a write
		put(4, v2, 201, nil),
		put(5, mkey, 201, manifestBody(t, 2, 2, "b")),
		{At: 6, Method: http.MethodDelete, Path: prefix + v1, Status: 202},
		{At: 7, Method: http.MethodDelete, Path: prefix + v1, Status: 404}, // already gone
		put(8, "d/plain", 201, nil),                                        // not in the domain's record
		// Another container's manifest.
		{At: 9, Method: http.MethodPut, Path: "/acct/c2/" + mkey, Status: 201, Body: manifestBody(t, 9, 9, "x")},
	}
	d, err := wireRecordOf(lines, prefix, "d")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.writes) != 2 || d.writes[0].m.Seq != 1 || d.writes[1].m.Seq != 2 || d.writes[1].versionID != `"e5"` {
		t.Fatalf("manifest writes %+v, want seq 1 then seq 2 (ETag \"e5\")", d.writes)
	}
	if i, ok := d.byID["b"]; !ok || i != 1 {
		t.Errorf("commit b at write %d (%v), want 1", i, ok)
	}
	if d.versions[v1] != 1 || d.versions[v2] != 1 || len(d.versions) != 2 {
		t.Errorf("version writes %v, want one each of %s and %s", d.versions, v1, v2)
	}
	if len(d.deleted) != 1 || !d.deleted[v1].Equal(time.Unix(0, 6)) {
		t.Errorf("deletions %v, want %s at 6 ns", d.deleted, v1)
	}

	// What makes the record unusable is an error, never a gap.
	for name, w := range map[string]spec.WireWrite{
		"no answer":     {At: 10, Method: http.MethodPut, Path: prefix + mkey, Err: "timeout"},
		"manifest gone": {At: 10, Method: http.MethodDelete, Path: prefix + mkey, Status: 202},
		"block list":    {At: 10, Method: http.MethodPut, Path: prefix + mkey, Comp: "blocklist", Status: 201},
		"version lost":  {At: 10, Method: http.MethodDelete, Path: prefix + v2, Err: "connection reset"},
	} {
		if _, err := wireRecordOf(append(lines, w), prefix, "d"); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), "wire record") {
			t.Errorf("%s: %v, want it to name the wire record", name, err)
		}
	}
}

// loadWire orders lines by At, whatever order they were appended in.
func TestLoadWire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wire.jsonl")
	var data []byte
	for _, at := range []int64{3, 1, 2} {
		line, _ := json.Marshal(spec.WireWrite{At: at, Method: http.MethodPut})
		data = append(append(data, line...), '\n')
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := loadWire(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || lines[0].At != 1 || lines[1].At != 2 || lines[2].At != 3 {
		t.Errorf("loaded %+v, want At 1, 2, 3", lines)
	}
	if lines, err := loadWire(filepath.Join(t.TempDir(), "none")); err != nil || lines != nil {
		t.Errorf("a missing record: %v, %v; want none and no error", lines, err)
	}
}
