package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A command whose context a signal cancelled exits 128 plus the signal's
// number and says which signal stopped it.
func TestSignalExitCodes(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(&interrupted{sig: sig})
		var out, errb bytes.Buffer
		code := run(ctx, []string{"--store", "file://" + t.TempDir(), "ls", "d"}, strings.NewReader(""), &out, &errb)
		if code != want {
			t.Errorf("%v: exit %d, want %d (stderr %q)", sig, code, want, errb.String())
		}
		if !strings.HasPrefix(errb.String(), "fence: ") || !strings.Contains(errb.String(), "interrupted by SIG") {
			t.Errorf("%v: stderr %q does not say which signal stopped the command", sig, errb.String())
		}
	}
}

// A command that finished its work although a signal arrived exits as it
// would have without the signal.
func TestSignalAfterSuccess(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(&interrupted{sig: syscall.SIGINT})
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"--version"}, strings.NewReader(""), &out, &errb); code != exitOK || errb.Len() != 0 {
		t.Fatalf("--version after SIGINT: exit %d, stderr %q; want 0 and nothing", code, errb.String())
	}
}

// start runs fence with args in the background, like run, with stdin
// and stdout when they are not nil.
func (c *cli) start(stdin, stdout *os.File, args ...string) (*exec.Cmd, *bytes.Buffer) {
	c.t.Helper()
	args = append([]string{"--store", c.store}, args...)
	cmd := exec.Command(fenceBin, args...)
	cmd.Dir = c.dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FENCE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if stdin != nil {
		cmd.Stdin = stdin
	}
	if stdout != nil {
		cmd.Stdout = stdout
	}
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	return cmd, &errb
}

// stopped waits for cmd to exit after a signal, and fails the test if it
// takes more than 5 seconds (then kills it).
func stopped(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Errorf("fence %q did not stop within 5s of the signal", cmd.Args[1:])
		_ = cmd.Process.Kill()
		return <-done
	}
}

// tempFiles lists get -o's temporary files in dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.fence-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// SIGINT and SIGTERM stop 'get -o' in the middle of a transfer: it exits
// 130 or 143, names the signal, and leaves neither FILE nor its
// temporary file. (get used to ignore both signals and exit 0.)
func TestGetInterrupted(t *testing.T) {
	c := newCLI(t)
	big := filepath.Join(c.dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("0123456789abcdef"), 4<<20), 0o644); err != nil { // 64 MiB
		t.Fatal(err)
	}
	c.want(0, "", "put", "d", "big", big, "--token", tok(c.acquire("d")))
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		out := filepath.Join(c.dir, "out-"+sig.String())
		cmd, stderr := c.start(nil, nil, "get", "d", "big", "-o", out)
		// Signal once the temporary file has bytes: mid-transfer.
		deadline := time.Now().Add(30 * time.Second)
		for {
			if tmp := tempFiles(t, c.dir); len(tmp) == 1 {
				if fi, err := os.Stat(tmp[0]); err == nil && fi.Size() > 0 {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%v: no temporary file with bytes in it after 30s", sig)
			}
			time.Sleep(time.Millisecond)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err := stopped(t, cmd)
		if code := cmd.ProcessState.ExitCode(); code != want {
			t.Errorf("%v: exit %d (%v), want %d; stderr %q", sig, code, err, want, stderr)
		}
		if !strings.Contains(stderr.String(), "interrupted by SIG") {
			t.Errorf("%v: stderr %q does not name the signal", sig, stderr)
		}
		if tmp := tempFiles(t, c.dir); len(tmp) != 0 {
			t.Errorf("%v: temporary files left behind: %q", sig, tmp)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: %s exists after the interrupted get (%v)", sig, out, err)
		}
	}
}

// SIGTERM stops a put whose standard input is open but idle: it exits
// 143, names the signal and commits nothing.
func TestPutInterrupted(t *testing.T) {
	c := newCLI(t)
	token := tok(c.acquire("d"))
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	cmd, stderr := c.start(pr, nil, "put", "d", "k", "-", "--token", token)
	pr.Close()
	if _, err := pw.Write([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // let it block reading the rest
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = stopped(t, cmd)
	if code := cmd.ProcessState.ExitCode(); code != 143 || !strings.Contains(stderr.String(), "interrupted by SIGTERM") {
		t.Errorf("put after SIGTERM: exit %d (%v), stderr %q; want 143 naming SIGTERM", code, err, stderr)
	}
	c.want(exitError, "", "get", "d", "k")
}

// SIGINT stops 'get' blocked writing to a standard output that nobody
// reads, and 'lease acquire --wait' waiting for another holder: both exit
// 130.
func TestInterruptBlocked(t *testing.T) {
	c := newCLI(t)
	t1 := tok(c.acquire("d", "--holder", "alice", "--ttl", "1m"))
	c.want(0, "", "put", "d", "big", c.file("big", strings.Repeat("x", 4<<20)), "--token", t1)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	get, getErr := c.start(nil, pw, "get", "d", "big")
	pw.Close()
	wait, waitErr := c.start(nil, nil, "lease", "acquire", "d", "--holder", "bob", "--wait")
	if _, err := pr.Read(make([]byte, 1)); err != nil { // get is copying
		t.Fatal(err)
	}
	time.Sleep(time.Second) // get fills the pipe; bob waits
	for _, p := range []struct {
		cmd    *exec.Cmd
		stderr *bytes.Buffer
	}{{get, getErr}, {wait, waitErr}} {
		if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		err := stopped(t, p.cmd)
		if code := p.cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(p.stderr.String(), "interrupted by SIGINT") {
			t.Errorf("fence %q after SIGINT: exit %d (%v), stderr %q; want 130 naming SIGINT", p.cmd.Args[3:], code, err, p.stderr)
		}
	}
}
