package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startExec starts fence with args in its own process group, as run does,
// and returns the process; its output goes to the returned buffers.
func (c *cli) startExec(args ...string) (*exec.Cmd, *syncBuffer, *syncBuffer) {
	c.t.Helper()
	args = append([]string{"--store", c.store}, append(append([]string(nil), c.global...), args...)...)
	cmd := exec.Command(fenceBin, args...)
	cmd.Dir = c.dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FENCE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0", "FENCE_BIN="+fenceBin)
	cmd.Env = append(cmd.Env, c.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd, &out, &errb
}

// syncBuffer is a bytes.Buffer that may be read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFile waits until name exists.
func waitFile(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(name); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", name)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func exitStatus(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatal(err)
	}
	return ee.ExitCode()
}

// exec runs CMD with the lease in its environment, so CMD's own fence
// put is fenced with it; publishes the directory at once; passes CMD's
// exit code on.
func TestExec(t *testing.T) {
	c := newCLI(t)
	// FENCE_BIN comes from exec: fence is not on PATH, nor in this
	// test's environment (cli filters FENCE_* out).
	if err := os.Mkdir(filepath.Join(c.dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.want(0, "", "exec", "reports", "--ttl", "2s", "--publish", "out:daily", "--",
		"sh", "-c", `case "$FENCE_BIN" in /*) ;; *) exit 99;; esac; echo a,b > out/a.csv && echo "$FENCE_TOKEN" | "$FENCE_BIN" put reports token.txt -`)
	r := c.want(0, "", "get", "reports", "token.txt")
	tokExec, err := strconv.ParseUint(strings.TrimSpace(r.stdout), 10, 64)
	if err != nil {
		t.Fatalf("token.txt = %q", r.stdout)
	}
	if r := c.want(0, "", "get", "reports", "daily/a.csv"); r.stdout != "a,b\n" {
		t.Fatalf("daily/a.csv = %q", r.stdout)
	}
	// The lease was released: the next acquisition is immediate, above
	// the token exec held.
	if next := c.acquire("reports"); next <= tokExec {
		t.Fatalf("token after exec %d, exec's %d", next, tokExec)
	}
	c.want(7, "", "exec", "other", "--", "sh", "-c", "exit 7")
	c.want(2, "", "exec", "other", "sh") // no --
	c.want(2, "", "exec", "other", "--ttl", "0s", "--", "true")
	c.want(2, "", "exec", "other", "--delete", "--", "true")
}

// A fence exec whose process is stopped past its lease while another
// holder takes over and writes exits 3 (its publish was fenced) or 5
// (it saw its lease lost first) when resumed, and publishes nothing: on
// the local directory here, on MinIO and dynalite in
// TestServersExecStoppedPastItsLease, on gs:// and azblob:// in
// cloudSequence.
func TestExecStoppedPastItsLease(t *testing.T) { stoppedPastItsLease(t, newCLI(t), "d") }

// stoppedPastItsLease runs the takeover on domain, where nothing was
// committed before.
func stoppedPastItsLease(t *testing.T, c *cli, domain string) {
	out := filepath.Join(c.dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// Two files: r.csv, which the newer holder writes too, and mine.csv,
	// which only the stopped exec would publish.
	cmd, stdout, stderr := c.startExec("exec", domain, "--ttl", "2s", "--publish", "out", "--",
		"sh", "-c", `echo mine > out/r.csv; echo mine > out/mine.csv; touch ready; while [ ! -e go ]; do sleep 0.02; done; touch finished`)
	waitFile(t, filepath.Join(c.dir, "ready"))
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Past the lease. Its TTL is long enough that a busy machine (the race
	// detector, the servers) does not lose it before the stop.
	time.Sleep(2500 * time.Millisecond)
	tok := c.acquire(domain, "--holder", "newer")
	c.want(0, "theirs", "put", domain, "r.csv", "-", "--token", strconv.FormatUint(tok, 10))
	// The command finishes while exec is stopped; then exec resumes.
	if err := os.WriteFile(filepath.Join(c.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(c.dir, "finished"))
	time.Sleep(100 * time.Millisecond) // for sh to exit after its touch
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	code := exitStatus(t, cmd.Wait())
	if code != exitFenced && code != exitLost {
		t.Fatalf("exec resumed past its lease: exit %d, want %d or %d\nstdout: %s\nstderr: %s", code, exitFenced, exitLost, stdout, stderr)
	}
	t.Logf("exec resumed past its lease: exit %d: %s", code, strings.TrimSpace(stderr.String()))
	// The domain holds the newer holder's key alone, at its token.
	var keys []struct {
		Key   string
		Token uint64
	}
	r := c.want(0, "", "ls", domain, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &keys); err != nil {
		t.Fatalf("ls --json printed %q: %v", r.stdout, err)
	}
	if len(keys) != 1 || keys[0].Key != "r.csv" || keys[0].Token != tok {
		t.Fatalf("keys after the takeover: %+v; want r.csv alone, at the newer holder's token %d", keys, tok)
	}
	if r := c.want(0, "", "get", domain, "r.csv"); r.stdout != "theirs" {
		t.Fatalf("r.csv = %q; want the newer holder's", r.stdout)
	}
}

// A second exec --wait on the same domain runs once the first has ended,
// and the first keeps its lease for several TTLs.
func TestExecWait(t *testing.T) {
	c := newCLI(t)
	// A TTL of a second: exec starts CMD through a supervisor, a second
	// fence process, which a race-enabled build on a loaded machine can
	// take hundreds of milliseconds to start.
	first, _, errb := c.startExec("exec", "d", "--ttl", "1s", "--", "sh", "-c", `touch started; sleep 4; echo first >> order`)
	waitFile(t, filepath.Join(c.dir, "started"))
	c.want(4, "", "exec", "d", "--ttl", "1s", "--", "true")
	c.want(0, "", "exec", "d", "--ttl", "1s", "--wait", "--", "sh", "-c", `echo second >> order`)
	if code := exitStatus(t, first.Wait()); code != 0 {
		t.Fatalf("first exec: exit %d: %s", code, errb)
	}
	data, err := os.ReadFile(filepath.Join(c.dir, "order"))
	if err != nil || string(data) != "first\nsecond\n" {
		t.Fatalf("order = %q, %v; want first then second", data, err)
	}
}

// readInt reads a decimal number from a file, or 0 while it is empty.
func readInt(t *testing.T, name string) int {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return n
}

// A command exec cannot start exits as a shell would: 127 when it is not
// found, 126 when it cannot be run; the lease is released either way.
func TestExecCannotStart(t *testing.T) {
	c := newCLI(t)
	c.want(exitNotFound, "", "exec", "d", "--", "./no-such-command")
	c.file("notexec.sh", "echo hi\n")
	c.want(exitCannotRun, "", "exec", "d", "--", "./notexec.sh")
	c.acquire("d") // free again
}

// lease break stops a running exec within --check-every and --grace,
// however long its TTL (renewals alone would notice after 20 minutes),
// and exec says who broke the lease, at which token and when.
func TestExecStoppedByBreak(t *testing.T) {
	c := newCLI(t)
	cmd, _, errb := c.startExec("exec", "d", "--ttl", "1h", "--check-every", "200ms", "--grace", "200ms", "--",
		"sh", "-c", `touch started; while :; do sleep 0.05; done`)
	waitFile(t, filepath.Join(c.dir, "started"))
	c.want(0, "", "lease", "break", "d", "--holder", "ops")
	broke := time.Now()
	code := exitStatus(t, cmd.Wait())
	took := time.Since(broke)
	const want = `lease broken by "ops" at token 2 (`
	if code != exitLost || !strings.Contains(errb.String(), want) {
		t.Fatalf("exec after the break: exit %d, stderr %q; want %d and %q", code, errb, exitLost, want)
	}
	// The check interval and the grace, and seconds of slack for a
	// loaded machine.
	if bound := 400*time.Millisecond + 8*time.Second; took > bound {
		t.Fatalf("exec ended %s after the break; want within %s", took, bound)
	}
	t.Logf("exec ended %s after the break: %s", took.Round(time.Millisecond), errb)
}
