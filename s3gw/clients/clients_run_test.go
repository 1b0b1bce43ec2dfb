package clients

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A client is one S3 client and how to run its scenario as CMD.
type client struct {
	name string
	// argv returns CMD, or nil and why the client cannot run here.
	argv func(t *testing.T) (argv []string, missing string)
	// extra is what CMD's environment needs beyond the contract and
	// FENCE_S3_SRC.
	extra []string
}

// clients are every client a target is tested with.
var clients = []client{
	{name: "awscli", argv: script("FENCE_TEST_AWSCLI", "/bin/bash", "awscli.sh")},
	{name: "s3cmd", argv: script("FENCE_TEST_S3CMD", "/bin/bash", "s3cmd.sh")},
	{name: "rclone", argv: script("FENCE_TEST_RCLONE", "/bin/bash", "rclone.sh")},
	{name: "boto3", argv: interpreter("FENCE_TEST_BOTO3_PYTHON", "boto3.py")},
	{name: "client-s3", argv: nodeScript("FENCE_TEST_AWSJS", "client-s3.mjs")},
	{name: "aws-sdk-go-v2", argv: helper, extra: []string{scenarioEnv + "=aws-sdk-go-v2"}},
	{name: "minio-go", argv: helper, extra: []string{scenarioEnv + "=minio-go"}},
}

// testdata returns the absolute path of a file under testdata/: CMD may
// run in another directory (fence exec keeps it, but nothing promises).
func testdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// script runs testdata/name with shell, given the client's binary (named
// by the variable env) as its argument.
func script(env, shell, name string) func(*testing.T) ([]string, string) {
	return func(t *testing.T) ([]string, string) {
		bin := os.Getenv(env)
		if bin == "" {
			return nil, env + " is not set (bash deploy/local/test.sh installs the client and sets it)"
		}
		return []string{shell, testdata(t, name), bin}, ""
	}
}

// interpreter runs testdata/name with the interpreter named by env.
func interpreter(env, name string) func(*testing.T) ([]string, string) {
	return func(t *testing.T) ([]string, string) {
		bin := os.Getenv(env)
		if bin == "" {
			return nil, env + " is not set (bash deploy/local/test.sh installs the client and sets it)"
		}
		return []string{bin, testdata(t, name)}, ""
	}
}

// nodeScript runs testdata/name with node, given the directory named by
// env (the one holding node_modules) as its argument.
func nodeScript(env, name string) func(*testing.T) ([]string, string) {
	return func(t *testing.T) ([]string, string) {
		dir := os.Getenv(env)
		if dir == "" {
			return nil, env + " is not set (bash deploy/local/test.sh installs the packages into $FENCE_CACHE/awsjs and sets it)"
		}
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, "node is not on PATH"
		}
		return []string{node, testdata(t, name), dir}, ""
	}
}

// helper runs this test binary again as CMD, running TestScenarioHelper
// only; scenarioEnv names the Go client.
func helper(*testing.T) ([]string, string) {
	return []string{os.Args[0], "-test.run=^TestScenarioHelper$", "-test.count=1", "-test.timeout=5m", "-test.v"}, ""
}

// clientArgv returns c's CMD, or skips t (fails it, with
// FENCE_TEST_S3_CLIENTS=1) when c cannot run here.
func clientArgv(t *testing.T, c client) []string {
	t.Helper()
	argv, missing := c.argv(t)
	if missing != "" {
		if os.Getenv("FENCE_TEST_S3_CLIENTS") == "1" {
			t.Fatalf("%s cannot run: %s (FENCE_TEST_S3_CLIENTS=1: a missing client fails)", c.name, missing)
		}
		t.Skipf("%s cannot run: %s", c.name, missing)
	}
	return argv
}

// runClients runs every client's scenario against tg (or only the
// clients named in only), one subtest each, and checks what each
// stored.
func runClients(t *testing.T, tg target, only ...string) {
	for _, c := range clients {
		if len(only) > 0 && !slices.Contains(only, c.name) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			argv := clientArgv(t, c)
			src := sources(t)
			r := tg.open(t, c.name)
			out, took, err := execScenario(t, r, src, argv, c.extra)
			if err != nil {
				t.Fatalf("%s's scenario failed after %s (%v): %s\noutput:\n%s", c.name, took, err, strings.Join(argv, " "), out)
			}
			t.Logf("%s's scenario held in %s", c.name, took)
			if testing.Verbose() {
				t.Logf("output:\n%s", out)
			}
			if problems := checkStored(context.Background(), r, src); len(problems) > 0 {
				t.Errorf("%s's scenario exited 0, but what the target stored under %s is wrong:\n%s\nscenario output:\n%s", c.name, r.prefix(), strings.Join(problems, "\n"), out)
			}
		})
	}
}

// execScenario runs one client's scenario (argv) on r, with the sources
// in src, and returns its output, how long it took and how it ended. Each
// line of the output starts with "| ": the Go clients' output holds go
// test's own "--- PASS" and "--- FAIL" lines, which must not read as this
// test's.
func execScenario(t *testing.T, r run, src string, argv, extra []string) (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// A home of its own: no ~/.aws, ~/.s3cfg or rclone.conf of the
	// machine's reaches the client.
	env := append([]string{"FENCE_S3_SRC=" + src, "HOME=" + t.TempDir()}, extra...)
	cmd := r.command(ctx, argv, env)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start).Round(time.Millisecond)
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	return "| " + strings.Join(lines, "\n| "), took, err
}

// TestClients runs every client's scenario against MinIO directly.
func TestClients(t *testing.T) {
	runClients(t, newMinioTarget(t))
}
