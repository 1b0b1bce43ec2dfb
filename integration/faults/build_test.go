package faults

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// buildFaultbin builds the child processes' binary into dir, without the
// race detector (the children are many and the machine small; the suite's
// own code runs under -race when the tests do).
func buildFaultbin(t *testing.T, dir string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(dir, "faultbin")
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", out, "github.com/fencedstore/fence/integration/faults/internal/faultbin")
	cmd.Env = os.Environ()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build faultbin: %v\n%s", err, b)
	}
	t.Logf("built faultbin in %s", time.Since(start).Round(time.Millisecond))
	return out
}
