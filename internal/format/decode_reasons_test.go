package format

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// twoStepRefusal is how Decode began before it decoded a manifest once:
// the format read on its own, then the whole manifest. It returns the
// reason and error of the refusal those steps make, or ok when they pass
// (Decode's later checks did not change).
func twoStepRefusal(data []byte) (reason string, err error, ok bool) {
	var probe struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return "not a JSON manifest", err, false
	}
	if !knownFormat(probe.Format) {
		return unknownFormat(probe.Format), nil, false
	}
	if err := json.Unmarshal(data, new(Manifest)); err != nil {
		return "fields do not match format " + probe.Format, err, false
	}
	return "", nil, true
}

// checkSameRefusal fails t unless Decode refuses data with the reason and
// error the two-step decode gave it, whenever that refused it.
func checkSameRefusal(t *testing.T, data []byte) {
	t.Helper()
	if len(strings.TrimSpace(string(data))) == 0 {
		return // refused as empty before either
	}
	reason, werr, ok := twoStepRefusal(data)
	_, err := Decode("d", "d/_fence/manifest.json", data)
	if ok {
		var ce *CorruptError
		if errors.As(err, &ce) && (strings.HasPrefix(ce.Reason, "not a JSON") || strings.HasPrefix(ce.Reason, "unknown format") || strings.HasPrefix(ce.Reason, "fields do not match")) {
			t.Fatalf("Decode(%q) refused (%v), the two-step decode read it", data, err)
		}
		return
	}
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("Decode(%q) = %v, want refused: %s", data, err, reason)
	}
	if ce.Reason != reason || errString(ce.Err) != errString(werr) {
		t.Fatalf("Decode(%q) refused with %q (%v), the two-step decode with %q (%v)", data, ce.Reason, ce.Err, reason, werr)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestDecodeReasons: Decode, which decodes a manifest once, refuses every
// input the two-step decode refused, with the same reason and error: bad
// JSON, a format that is not a string, an unknown format (with fields
// that do or do not decode), fields of the wrong type; and every input of
// the fuzz corpus.
func TestDecodeReasons(t *testing.T) {
	inputs := []string{
		`[1]`, `"x"`, `null`, `1`, `{`, `{"format":"fence.manifest/v1"`, `{} x`,
		`{"format":3}`, `{"format":null}`, `{"FORMAT":"fence.manifest/v99"}`,
		`{"format":"fence.manifest/v99","seq":"x"}`, `{"format":"fence.manifest/v99","seq":1}`,
		`{"format":"fence.manifest/v1","seq":"x"}`, `{"format":"fence.manifest/v1","keys":[]}`,
		`{"format":"fence.manifest/v2","seq":"x","format":"fence.manifest/v9"}`,
		`{"format":"fence.manifest/v9","format":"fence.manifest/v1","domain":"d","highest_token":1,"seq":1}`,
		`{"format":"fence.manifest/v3","domain":"d","highest_token":1,"seq":1,"keys":{"k":{"data":"%%"}}}`,
		`{"format":"fence.manifest/v1","domain":"d","highest_token":1,"seq":1,"keys":{"k":{"committed":"yesterday"}}}`,
		`{"format":"fence.manifest/v1","domain":"d","highest_token":1,"seq":1}`,
	}
	for _, in := range inputs {
		checkSameRefusal(t, []byte(in))
	}
	dirs, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzDecode*"))
	n := 0
	for _, dir := range dirs {
		files, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			raw, err := os.ReadFile(filepath.Join(dir, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[1], "[]byte(") {
				t.Fatalf("%s: not a corpus entry of one []byte", f.Name())
			}
			s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
			if err != nil {
				t.Fatalf("%s: %v", f.Name(), err)
			}
			checkSameRefusal(t, []byte(s))
			n++
		}
	}
	if n == 0 {
		t.Fatal("no fuzz corpus read")
	}
}
