package clients

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The files a scenario uploads, in the directory named by FENCE_S3_SRC.
// list/0 .. list/4 are the bodies of the five objects it lists.
const (
	smallSize = 1 << 10
	// bigSize makes a multipart upload with parts of 8 to 16 MiB have at
	// least 3 parts (16+16+9 MiB).
	bigSize   = 41 << 20
	listCount = 5
	listSize  = 100
)

var (
	srcOnce sync.Once
	srcDir  string
	srcErr  error
)

// sources returns the directory of the scenario's source files, made once
// per process (TestMain removes it).
func sources(t *testing.T) string {
	t.Helper()
	srcOnce.Do(func() { srcDir, srcErr = makeSources() })
	if srcErr != nil {
		t.Fatalf("making the source files: %v", srcErr)
	}
	return srcDir
}

func makeSources() (string, error) {
	dir, err := os.MkdirTemp("", "fence-clients-src-")
	if err != nil {
		return "", err
	}
	files := map[string]int{"small.bin": smallSize, "big.bin": bigSize}
	for i := range listCount {
		files[fmt.Sprintf("list/%d", i)] = listSize
	}
	for name, size := range files {
		b := make([]byte, size)
		_, _ = rand.Read(b)
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return dir, err
		}
		if err := os.WriteFile(p, b, 0o444); err != nil {
			return dir, err
		}
	}
	return dir, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if srcDir != "" {
		os.RemoveAll(srcDir)
	}
	os.Exit(code)
}
