package filestore_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/filestore"
)

// childEnv selects the child mode of TestCrossProcessChild:
// "<dir>|<process id>|<iterations>".
const childEnv = "FILESTORE_TEST_CHILD"

const sharedKey = "shared/counter"

// TestCrossProcess runs two OS processes that race read-modify-write
// cycles (Head, then Put with If-Match on the ETag they saw) on one key.
// Each win replaces one version; if the flock-protected check-and-rename
// were not atomic across processes, two writers would win from the same
// version and one of their writes would be lost.
func TestCrossProcess(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("running as a child")
	}
	const procs, iterations = 2, 150
	dir := t.TempDir()
	b, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	initial := put(t, b, sharedKey, "initial", driver.PutOptions{})

	type child struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		lines *bufio.Scanner
	}
	children := make([]child, procs)
	for i := range children {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestCrossProcessChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d|%d", childEnv, dir, i, iterations))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = child{cmd, stdin, bufio.NewScanner(stdout)}
	}
	// Start line: every child has opened the store and waits on stdin.
	for i, c := range children {
		if !c.lines.Scan() || c.lines.Text() != "READY" {
			t.Fatalf("child %d did not report READY: %q %v", i, c.lines.Text(), c.lines.Err())
		}
	}
	for _, c := range children {
		c.stdin.Close()
	}

	next := map[string]string{} // replaced ETag -> the ETag that replaced it
	wins := make([]int, procs)
	for i, c := range children {
		for c.lines.Scan() {
			f := strings.Fields(c.lines.Text())
			if len(f) != 3 || f[0] != "WON" {
				continue // the test framework's own output
			}
			if other, dup := next[f[1]]; dup {
				t.Errorf("version %s was replaced twice: by %s and by child %d's %s", f[1], other, i, f[2])
			}
			next[f[1]] = f[2]
			wins[i]++
		}
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v", i, err)
		}
	}
	total := 0
	for _, w := range wins {
		total += w
	}
	t.Logf("wins per process: %v of %d attempts each", wins, iterations)
	if total == 0 {
		t.Fatal("no process ever won")
	}

	// The wins form one chain of versions from the initial one to the
	// current one: nothing was lost or forked.
	final, err := b.Head(t.Context(), sharedKey)
	if err != nil {
		t.Fatal(err)
	}
	versions, etag := 0, initial.ETag
	for etag != final.ETag && versions <= total {
		etag = next[etag]
		versions++
	}
	if versions != total || len(next) != total {
		t.Fatalf("%d wins, but following them from the initial version reaches the current one after %d steps", total, versions)
	}
	content := drivertest.ReadString(t, b, sharedKey)
	if sum := sha256.Sum256([]byte(content)); hex.EncodeToString(sum[:]) != final.ETag {
		t.Fatalf("current content %q does not match its ETag", content)
	}
	if !strings.HasPrefix(content, "process ") {
		t.Fatalf("current content %q was not written by a child", content)
	}
}

// TestCrossProcessChild is one child of TestCrossProcess; run on its own
// it skips.
func TestCrossProcessChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("helper process for TestCrossProcess")
	}
	parts := strings.Split(spec, "|")
	if len(parts) != 3 {
		t.Fatalf("%s=%q", childEnv, spec)
	}
	id := parts[1]
	n, err := strconv.Atoi(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	b, err := filestore.Open(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("READY")
	io.Copy(io.Discard, os.Stdin) // the parent closes stdin to start us
	for i := range n {
		seen, err := b.Head(t.Context(), sharedKey)
		if err != nil {
			t.Fatal(err)
		}
		data := fmt.Sprintf("process %s iteration %d", id, i)
		info, err := b.Put(t.Context(), sharedKey, strings.NewReader(data), int64(len(data)), driver.PutOptions{Mode: driver.Update{ETag: seen.ETag}})
		if errors.Is(err, driver.ErrPreconditionFailed) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("WON %s %s\n", seen.ETag, info.ETag)
	}
}
