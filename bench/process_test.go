package bench

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fencedstore/fence/objstore/filestore"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if cliDir != "" {
		os.RemoveAll(cliDir)
	}
	os.Exit(code)
}

var (
	cliOnce sync.Once
	cliDir  string
	cliPath string
	cliErr  error
)

// fenceCLI builds the fence binary once for the tests of the process
// rows, and returns its path.
func fenceCLI(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		if cliDir, cliErr = os.MkdirTemp("", "fence-bench-cli-"); cliErr != nil {
			return
		}
		cliPath = filepath.Join(cliDir, "fence")
		out, err := exec.Command("go", "build", "-o", cliPath, "../cmd/fence").CombinedOutput()
		if err != nil {
			cliErr = err
			t.Logf("go build: %s", out)
		}
	})
	if cliErr != nil {
		t.Fatalf("building fence: %v", cliErr)
	}
	return cliPath
}

// TestProcessRowsFilestore runs the process rows with a fence binary on a
// file store: whole `fence put` processes, with the probe's verdict
// cached and without, and the plain and floor children of the same
// binary, each measured with its CPU time.
func TestProcessRowsFilestore(t *testing.T) {
	dir := t.TempDir()
	b, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := tiny(b)
	cfg.Cases = []Case{CaseProcess}
	cfg.CLI, cfg.StoreURL = fenceCLI(t), "file://"+dir
	cfg.ProcessIterations = 2
	rep, err := Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, rep.Table())
	}
	if got, want := rowIDs(rep), []string{"process/put/100B", "process/put/100B/nocache"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("rows %v, want %v", got, want)
	}
	for _, row := range rep.Rows {
		if row.Fenced.N != 2 || row.Plain.N != 2 || row.Floor.N != 2 || row.Ratio <= 0 || row.FloorRatio <= 0 {
			t.Errorf("%s: want both sides and the floor measured, got %+v", row.ID, row)
		}
		if row.Fenced.CPU <= 0 || row.Plain.CPU <= 0 || row.Floor.CPU <= 0 {
			t.Errorf("%s: want the children's CPU on every side, got %+v", row.ID, row)
		}
	}
	t.Log("\n" + rep.Table())
}
