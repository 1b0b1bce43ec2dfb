//go:build unix && !solaris && !aix

package filestore_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/filestore"
)

// stalledPutEnv makes TestStalledPutChild a child that starts a Put in
// the directory it names and never finishes it.
const stalledPutEnv = "FILESTORE_TEST_STALLED_PUT"

// tempFiles lists the names in dir's .fence-tmp.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".fence-tmp"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// age sets the modification time of dir/.fence-tmp/name to two hours ago.
// flocked reports whether another process holds a flock on path.
func flocked(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

func age(t *testing.T, dir, name string) {
	t.Helper()
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, ".fence-tmp", name), old, old); err != nil {
		t.Fatal(err)
	}
}

func TestOpenSweepsDeadWritersTemps(t *testing.T) {
	_, dir := open(t)
	tmp := filepath.Join(dir, ".fence-tmp")
	for _, name := range []string{"put-dead", "put-held", "put-fresh", "notes"} {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte("partial body"), 0o644); err != nil {
			t.Fatal(err)
		}
		if name != "put-fresh" {
			age(t, dir, name)
		}
	}
	// put-held is flocked through its own open file, as a live Put holds
	// its temporary file.
	held, err := os.Open(filepath.Join(tmp, "put-held"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}

	if _, err := filestore.Open(dir); err != nil {
		t.Fatal(err)
	}
	if got, want := tempFiles(t, dir), []string{"notes", "put-fresh", "put-held"}; !slices.Equal(got, want) {
		t.Fatalf(".fence-tmp after Open = %v, want %v (only the old, unlocked put- file removed)", got, want)
	}

	syscall.Flock(int(held.Fd()), syscall.LOCK_UN)
	if _, err := filestore.Open(dir); err != nil {
		t.Fatal(err)
	}
	if got, want := tempFiles(t, dir), []string{"notes", "put-fresh"}; !slices.Equal(got, want) {
		t.Fatalf(".fence-tmp after the lock was released = %v, want %v", got, want)
	}
}

// TestSweepSparesLiveWriterAndRemovesKilledOnes runs a Put in another
// process that stalls mid-body. While that process lives, reopening the
// store leaves its temporary file alone, even when the file is old; once
// the process is killed with SIGKILL, the next Open removes the file.
func TestSweepSparesLiveWriterAndRemovesKilledOnes(t *testing.T) {
	if os.Getenv(stalledPutEnv) != "" {
		t.Skip("running as a child")
	}
	_, dir := open(t)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestStalledPutChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), stalledPutEnv+"="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe() // the body; never closed while it runs
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if _, err := stdin.Write([]byte("the first bytes of a body that never ends")); err != nil {
		t.Fatal(err)
	}

	var names []string
	for deadline := time.Now().Add(30 * time.Second); len(names) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the child's Put created no temporary file within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
		names = tempFiles(t, dir)
	}
	if len(names) != 1 || !strings.HasPrefix(names[0], "put-") {
		t.Fatalf(".fence-tmp = %v, want one put- file", names)
	}
	// The Put creates its file, then flocks it; until it does, only the
	// file's age protects it. Wait for the flock before ageing the file.
	for deadline := time.Now().Add(30 * time.Second); !flocked(t, filepath.Join(dir, ".fence-tmp", names[0])); {
		if time.Now().After(deadline) {
			t.Fatal("the child's Put did not flock its temporary file within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	age(t, dir, names[0])

	if _, err := filestore.Open(dir); err != nil {
		t.Fatal(err)
	}
	if got := tempFiles(t, dir); !slices.Equal(got, names) {
		t.Fatalf("Open removed a live writer's temporary file: .fence-tmp = %v, want %v", got, names)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if got := tempFiles(t, dir); !slices.Equal(got, names) {
		t.Fatalf("the killed writer's file is not there to sweep: .fence-tmp = %v", got)
	}
	if _, err := filestore.Open(dir); err != nil {
		t.Fatal(err)
	}
	if got := tempFiles(t, dir); len(got) != 0 {
		t.Fatalf("Open left the killed writer's temporary file: .fence-tmp = %v", got)
	}
}

// TestStalledPutChild is the child of
// TestSweepSparesLiveWriterAndRemovesKilledOnes: a Put whose body is its
// stdin. Run on its own it skips.
func TestStalledPutChild(t *testing.T) {
	dir := os.Getenv(stalledPutEnv)
	if dir == "" {
		t.Skip("helper process for TestSweepSparesLiveWriterAndRemovesKilledOnes")
	}
	b, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Put(t.Context(), "stalled", os.Stdin, -1, driver.PutOptions{})
	fmt.Println("the body ended:", err)
}
