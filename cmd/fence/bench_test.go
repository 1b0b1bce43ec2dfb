package main

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// fence bench runs the cases it is given against the store, prints every
// row, and leaves nothing behind.
func TestBench(t *testing.T) {
	c := newCLI(t)
	r := c.want(0, "", "bench", "--json", "--cases", "put,get,livekeys,job,process", "--iterations", "3",
		"--put-sizes", "1KiB", "--get-sizes", "1KiB", "--live-keys", "10,300", "--process-iterations", "2")
	var rep struct {
		Rows []struct {
			ID         string
			Ratio      float64
			FloorRatio float64 `json:"floor_ratio"`
			Error      string
			Skipped    string
			Fenced     struct {
				N   int
				CPU int64 `json:"cpu_per_op_ns"`
			}
		}
		Cleanup struct{ Deleted int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("bench --json printed %q: %v", r.stdout, err)
	}
	ids := map[string]bool{}
	for _, row := range rep.Rows {
		ids[row.ID] = true
		if row.Error != "" || row.Skipped != "" {
			t.Errorf("row %s failed: %s%s", row.ID, row.Error, row.Skipped)
		}
		// Every row here has a floor; the process rows run this binary's
		// own 'fence put', and report its CPU.
		if row.Ratio <= 0 || row.FloorRatio <= 0 || row.Fenced.CPU <= 0 {
			t.Errorf("row %s: ratio %v, floor ratio %v, CPU %d ns per operation", row.ID, row.Ratio, row.FloorRatio, row.Fenced.CPU)
		}
	}
	for _, want := range []string{"put/1KiB", "get/1KiB", "livekeys/300", "job/1KiB", "job/1KiB/nofence", "process/put/1KiB", "process/put/1KiB/nocache"} {
		if !ids[want] {
			t.Errorf("no row %s in %v", want, ids)
		}
	}
	if rep.Cleanup.Deleted == 0 {
		t.Errorf("cleanup deleted nothing: %+v", rep.Cleanup)
	}
	// Nothing is left in the store but its own lock and temp folders.
	var left []string
	root := strings.TrimPrefix(c.store, "file://")
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() && strings.HasPrefix(d.Name(), ".fence-") {
			return filepath.SkipDir
		}
		if d != nil && !d.IsDir() {
			left = append(left, path)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("bench left %d objects behind, e.g. %s", len(left), left[0])
	}
	c.want(2, "", "bench", "--cases", "nope")
	c.want(2, "", "bench", "--put-sizes", "1XB")
}
