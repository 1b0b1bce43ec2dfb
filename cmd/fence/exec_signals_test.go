package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitExited waits for exec to exit, at most bound; past it, the test
// fails and exec is killed.
func waitExited(t *testing.T, cmd *exec.Cmd, bound time.Duration) int {
	t.Helper()
	cmd.WaitDelay = 5 * time.Second // for output pipes that something of CMD's left open
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitStatus(t, err)
	case <-time.After(bound):
		// exec alone: its supervisor then kills CMD's group.
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("fence %q still running %s after the signal", cmd.Args[1:], bound)
		return 0
	}
}

// Each signal exec passes on (SIGTERM, SIGINT, SIGHUP, SIGQUIT), sent to
// exec alone, reaches CMD's group; a group that ignores it is killed
// --grace later; exec exits 128+N, names the signal, publishes nothing,
// and has released the lease: another exec runs at once, without --wait.
// (exec used to wait for as long as CMD ignored SIGTERM, then exit 0;
// SIGHUP and SIGQUIT killed exec and left the lease held.)
func TestExecSignalsStopWithinGrace(t *testing.T) {
	c := newCLI(t)
	const grace = 300 * time.Millisecond
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT} {
		name := signalName(sig)
		domain := "d-" + strings.ToLower(name)
		ready := filepath.Join(c.dir, "ready-"+name)
		leader := filepath.Join(c.dir, "leader-"+name)
		out := "out-" + name
		cmd, _, errb := c.startExec("exec", domain, "--ttl", "10s", "--grace", grace.String(), "--publish", out, "--", "sh", "-c",
			`trap '' TERM INT HUP QUIT; echo $$ > "$1"; mkdir -p "$2"; echo a > "$2/a"; touch "$3"; while :; do sleep 0.05; done`,
			"sh", leader, out, ready)
		waitFile(t, ready)
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		sent := time.Now()
		code := waitExited(t, cmd, grace+8*time.Second) // the grace, and slack for a loaded machine
		took := time.Since(sent)
		t.Logf("%s: exit %d %s after the signal: %s", name, code, took.Round(time.Millisecond), strings.TrimSpace(errb.String()))
		if want := 128 + int(sig); code != want {
			t.Errorf("%s: exit %d, want %d\nstderr: %s", name, code, want, errb)
		}
		if want := "interrupted by " + name; !strings.Contains(errb.String(), want) || !strings.Contains(errb.String(), "nothing was published") {
			t.Errorf("%s: stderr %q; want %q and that nothing was published", name, errb, want)
		}
		if took < grace {
			t.Errorf("%s: exec exited %s after the signal, before --grace %s", name, took, grace)
		}
		if pgid := readInt(t, leader); !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
			t.Errorf("%s: CMD's process group %d is still there", name, pgid)
		}
		if r := c.want(0, "", "ls", domain); strings.Contains(r.stdout, "a") {
			t.Errorf("%s: something was published:\n%s", name, r.stdout)
		}
		c.want(0, "", "exec", domain, "--", "true") // the lease is free
	}
}

// A second signal does not change the first one's exit code: SIGHUP (an
// ssh session that drops), then SIGTERM (the session's cleanup), is 129,
// as the message says, not 143.
func TestExecSecondSignalKeepsFirstsCode(t *testing.T) {
	c := newCLI(t)
	ready := filepath.Join(c.dir, "ready")
	cmd, _, errb := c.startExec("exec", "d", "--ttl", "10s", "--grace", "1s", "--", "sh", "-c",
		`trap '' TERM HUP; touch "$1"; while :; do sleep 0.05; done`, "sh", ready)
	waitFile(t, ready)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := waitExited(t, cmd, 10*time.Second)
	if code != 129 || !strings.Contains(errb.String(), "interrupted by SIGHUP") {
		t.Fatalf("exit %d, stderr %q; want 129 and interrupted by SIGHUP", code, errb)
	}
	c.want(0, "", "exec", "d", "--", "true") // the lease is free
}

// A command that exits 0 on SIGTERM publishes nothing: exec exits 143
// and says so, instead of publishing on a cancelled context ("outcome of
// commit ... unknown: context canceled").
func TestExecSignalThenExitZeroPublishesNothing(t *testing.T) {
	c := newCLI(t)
	ready := filepath.Join(c.dir, "ready")
	cmd, _, errb := c.startExec("exec", "d", "--ttl", "10s", "--publish", "out", "--", "sh", "-c",
		`trap 'exit 0' TERM; mkdir out; echo a > out/a; touch ready; while :; do sleep 0.05; done`)
	waitFile(t, ready)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := waitExited(t, cmd, 10*time.Second)
	const want = `exec "d": interrupted by SIGTERM: passed on to sh's process group; sh exited with status 0; nothing was published`
	if code != 143 || !strings.Contains(errb.String(), want) || strings.Contains(errb.String(), "unknown") {
		t.Fatalf("exit %d, stderr %q; want 143 and %q", code, errb, want)
	}
	if r := c.want(0, "", "ls", "d"); strings.Contains(r.stdout, "a") {
		t.Fatalf("something was published:\n%s", r.stdout)
	}
	c.want(0, "", "exec", "d", "--", "true")
}

// A signal while exec waits for the lease ends the wait: exec exits
// 128+N and CMD never runs. (SIGHUP used to kill exec outright.)
func TestExecSignalWhileWaiting(t *testing.T) {
	c := newCLI(t)
	c.acquire("d", "--holder", "other", "--ttl", "1m")
	cmd, _, errb := c.startExec("exec", "d", "--wait", "--", "touch", "ran")
	time.Sleep(time.Second) // waiting
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	code := waitExited(t, cmd, 10*time.Second)
	if code != 129 || !strings.Contains(errb.String(), "interrupted by SIGHUP: touch was not started") {
		t.Fatalf("exit %d, stderr %q; want 129, touch not started", code, errb)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "ran")); err == nil {
		t.Fatal("CMD ran")
	}
}

// A command killed by a signal is reported by the signal's name; one
// that exits 138 by its status.
func TestExecCommandKilledBySignal(t *testing.T) {
	c := newCLI(t)
	r := c.want(138, "", "exec", "d", "--", "sh", "-c", "kill -USR1 $$")
	if !strings.Contains(r.stderr, "exec: sh was killed by SIGUSR1") || strings.Contains(r.stderr, "status") {
		t.Errorf("stderr %q; want the command killed by SIGUSR1", r.stderr)
	}
	r = c.want(138, "", "exec", "d", "--", "sh", "-c", "exit 138")
	if !strings.Contains(r.stderr, "exec: sh exited with status 138") {
		t.Errorf("stderr %q; want exit status 138", r.stderr)
	}
}

// --wait D, two words, bounds the wait in exec and lease acquire alike,
// before or after DOMAIN; --wait=D, --wait alone and lease acquire's
// --wait --timeout D still work.
func TestExecWaitSpellings(t *testing.T) {
	c := newCLI(t)
	hold := func(ttl string) { c.acquire("d", "--holder", "other", "--ttl", ttl) }
	hold("500ms")
	c.want(0, "", "exec", "d", "--wait", "30s", "--", "true")
	hold("500ms")
	c.want(0, "", "exec", "--wait", "30s", "d", "--", "true")
	hold("500ms")
	c.want(0, "", "exec", "d", "--wait=30s", "--", "true")
	hold("500ms")
	c.acquire("d", "--holder", "a", "--ttl", "500ms", "--wait", "30s")
	c.acquire("d", "--holder", "b", "--ttl", "500ms", "--wait=30s")
	c.acquire("d", "--holder", "c", "--ttl", "1m", "--wait", "--timeout", "30s")
	// Bounded: still held when the wait ends.
	for _, args := range [][]string{
		{"exec", "d", "--wait", "300ms", "--", "true"},
		{"lease", "acquire", "d", "--wait", "300ms"},
		{"lease", "acquire", "d", "--wait=300ms"},
		{"lease", "acquire", "d", "--wait", "--timeout", "300ms"},
	} {
		r := c.want(exitHeld, "", args...)
		if !strings.Contains(r.stderr, `still held by "c"`) || !strings.Contains(r.stderr, "after waiting 300ms") {
			t.Errorf("fence %s: stderr %q; want the holder and the wait", strings.Join(args, " "), r.stderr)
		}
	}
	for _, bad := range []string{"0s", "-1s", "soon"} {
		c.want(exitUsage, "", "exec", "e", "--wait="+bad, "--", "true")
	}
	c.want(exitUsage, "", "exec", "e", "--wait", "0s", "--", "true")
	c.want(exitUsage, "", "lease", "acquire", "e", "f")
}

// --publish DIR is looked for once CMD has exited 0, so CMD may make it;
// a directory still missing then is an error naming it, nothing is
// published, and the lease is released.
func TestExecPublishDirMadeByCommand(t *testing.T) {
	c := newCLI(t)
	c.want(0, "", "exec", "d", "--publish", "out:latest", "--", "sh", "-c", "mkdir out && echo a > out/a.csv")
	if r := c.want(0, "", "get", "d", "latest/a.csv"); r.stdout != "a\n" {
		t.Fatalf("latest/a.csv = %q", r.stdout)
	}
	r := c.want(exitError, "", "exec", "e", "--publish", "missing:latest", "--", "true")
	if want := `directory "missing" does not exist after true exited 0; nothing was published`; !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr %q; want %q", r.stderr, want)
	}
	c.want(0, "", "exec", "e", "--", "true") // the lease is free
	if r := c.run("", "ls", "e"); strings.Contains(r.stdout, "latest") {
		t.Fatalf("something was published:\n%s", r)
	}
}
