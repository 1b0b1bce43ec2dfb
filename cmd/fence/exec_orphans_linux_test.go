package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// running returns the pids of live (not zombie) processes whose command
// line contains marker.
func running(t *testing.T, marker string) []string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue // gone, or a zombie (whose command line is empty), or not ours
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// The state follows the parenthesised command name.
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		pids = append(pids, filepath.Base(d)+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return pids
}

// exec killed with SIGKILL leaves nothing of CMD running: its supervisor
// sees it gone and kills CMD's process group, background processes
// included. Without the supervisor (CMD a direct child of exec), sh and
// both sleeps outlive it.
func TestExecSIGKILLLeavesNoOrphans(t *testing.T) {
	c := newCLI(t)
	// A duration no other process has: the marker of CMD's processes.
	marker := fmt.Sprintf("%d.%03d", 600+rand.IntN(1000), rand.IntN(1000))
	cmd, _, errb := c.startExec("exec", "d", "--ttl", "10s", "--", "sh", "-c",
		"sleep "+marker+" & sleep "+marker+" & touch started; wait")
	waitFile(t, filepath.Join(c.dir, "started"))
	deadline := time.Now().Add(10 * time.Second)
	for len(running(t, marker)) < 3 { // sh and both sleeps
		if time.Now().After(deadline) {
			t.Fatalf("CMD's processes never all started: %q", running(t, marker))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = cmd.Process.Wait() // not cmd.Wait: it would wait for the output pipes, which CMD holds
	killed := time.Now()
	// One second is the promise; a loaded machine gets some slack before
	// the test calls it broken.
	for left := running(t, marker); len(left) > 0; left = running(t, marker) {
		if time.Since(killed) > 5*time.Second {
			t.Fatalf("after exec was killed with SIGKILL, CMD's processes still run:\n%s\nexec's stderr: %s", strings.Join(left, "\n"), errb)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("CMD's processes gone %s after exec's SIGKILL", time.Since(killed).Round(time.Millisecond))
}
