package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// jsonLines fails the test unless every line of stderr is one JSON
// object, and returns them.
func jsonLines(t *testing.T, what, stderr string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if line == "" && stderr == "" {
			break
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("%s: stderr line %d is not a JSON object: %q (%v)", what, i+1, line, err)
			continue
		}
		objs = append(objs, m)
	}
	return objs
}

// With --log-format json, every line fence writes to stderr is one JSON
// object, on every error path of the exit-code table: usage errors (with
// the hint), the final error with its exit code, startup notices and
// warnings, and the log records.
func TestJSONLogsOnEveryPath(t *testing.T) {
	c := newCLI(t)
	c.global = []string{"--log-format", "json"}
	c.file("notexec.sh", "echo hi\n")
	t1 := c.acquire("d", "--ttl", "1m")
	c.want(0, "", "lease", "break", "d", "--holder", "ops")
	c.acquire("held", "--holder", "a", "--ttl", "1m")
	for _, tc := range []struct {
		code int
		args []string
	}{
		{exitError, []string{"get", "d", "no-such-key"}},
		{exitUsage, []string{"put", "d", "k", "-", "--tokn", "2"}},
		{exitUsage, []string{"frobnicate"}},
		{exitUsage, []string{"put", "d"}},
		{exitUsage, []string{"--no-such-flag", "ls", "d"}},
		{exitFenced, []string{"put", "d", "k", "-", "--token", tok(t1)}},
		{exitHeld, []string{"lease", "acquire", "held", "--holder", "b"}},
		{exitLost, []string{"lease", "renew", "d", "--token", tok(t1)}},
		{7, []string{"exec", "e", "--", "sh", "-c", "exit 7"}},
		{exitCannotRun, []string{"exec", "e", "--", "./notexec.sh"}},
		{exitNotFound, []string{"exec", "e", "--", "./no-such-command"}},
		{exitUsage, []string{"--unsafe-skip-probe", "put", "d", "k", "-"}},                                                     // a warning, then the error
		{exitError, []string{"exec", "e", "--metrics-addr", "127.0.0.1:0", "--log-level", "info", "--", "sh", "-c", "exit 1"}}, // a notice and log records
	} {
		what := strings.Join(tc.args, " ")
		r := c.run("x", tc.args...)
		if r.code != tc.code {
			t.Errorf("fence %s: %s; want exit %d", what, r, tc.code)
			continue
		}
		objs := jsonLines(t, what, r.stderr)
		if len(objs) == 0 {
			t.Errorf("fence %s: nothing on stderr", what)
			continue
		}
		last := objs[len(objs)-1]
		if last["level"] != "ERROR" || last["code"] != float64(tc.code) || last["msg"] == "" {
			t.Errorf("fence %s: last stderr line %v; want level ERROR, code %d and a msg", what, last, tc.code)
		}
		if tc.code == exitUsage && last["hint"] == nil {
			t.Errorf("fence %s: usage error without its hint: %v", what, last)
		}
		t.Logf("fence %s: %s", what, strings.TrimSpace(r.stderr))
	}
}

// A command interrupted by SIGTERM reports it as JSON too (exit 143).
func TestJSONLogsInterrupted(t *testing.T) {
	c := newCLI(t)
	tk := c.acquire("d")
	cmd := exec.Command(fenceBin, "--store", c.store, "--log-format", "json", "put", "d", "k", "-", "--token", tok(tk))
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Write([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	// Long enough for a race-enabled binary on a loaded machine to start
	// and to be reading stdin, with its signal handler installed.
	time.Sleep(2 * time.Second)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if code := exitStatus(t, cmd.Wait()); code != 143 {
		t.Fatalf("exit %d; want 143: %s", code, errb.String())
	}
	objs := jsonLines(t, "interrupted put", errb.String())
	if len(objs) == 0 || objs[len(objs)-1]["code"] != float64(143) {
		t.Fatalf("stderr %q; want a JSON error with code 143", errb.String())
	}
}
