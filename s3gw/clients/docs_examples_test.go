package clients

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// docExamples returns the sh blocks of docs/cli.md's section on exec
// --s3.
func docExamples(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n### `fence exec DOMAIN --s3 -- CMD`")
	if !ok {
		t.Fatal("docs/cli.md has no section on fence exec DOMAIN --s3 -- CMD")
	}
	section, _, _ = strings.Cut(section, "\n### ")
	var blocks []string
	for {
		_, rest, ok := strings.Cut(section, "\n```sh\n")
		if !ok {
			return blocks
		}
		block, after, _ := strings.Cut(rest, "\n```\n")
		blocks = append(blocks, block)
		section = after
	}
}

// TestCLIDocExamples runs each example of docs/cli.md's section on exec
// --s3 as written, in a directory holding out/summary.csv, with fence and
// the clients the test command installed on PATH under the names the
// examples use, and checks that each published summary.csv.
func TestCLIDocExamples(t *testing.T) {
	blocks := docExamples(t)
	if len(blocks) < 5 {
		t.Fatalf("docs/cli.md's exec --s3 section has %d sh examples, want one per client (5)", len(blocks))
	}
	bin := t.TempDir()
	for name, env := range map[string]string{"aws": "FENCE_TEST_AWSCLI", "s3cmd": "FENCE_TEST_S3CMD", "rclone": "FENCE_TEST_RCLONE", "python3": "FENCE_TEST_BOTO3_PYTHON"} {
		target := os.Getenv(env)
		if target == "" {
			if os.Getenv("FENCE_TEST_S3_CLIENTS") == "1" {
				t.Fatalf("%s is not set (FENCE_TEST_S3_CLIENTS=1: a missing client fails)", env)
			}
			t.Skipf("%s is not set (bash deploy/local/test.sh installs the client and sets it)", env)
		}
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	awsjs := os.Getenv("FENCE_TEST_AWSJS")
	if awsjs == "" {
		t.Skip("FENCE_TEST_AWSJS is not set")
	}
	fence := buildFence(t)
	if err := os.Symlink(fence, filepath.Join(bin, "fence")); err != nil {
		t.Fatal(err)
	}
	for i, block := range blocks {
		t.Run(fmt.Sprintf("example%d", i+1), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "out", "summary.csv"), []byte("day,total\n2026-12-06,42\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			store := "file://" + filepath.Join(dir, "store")
			cmd := exec.Command("bash", "-e", "-c", block)
			cmd.Dir = dir
			cmd.Env = append(withoutContract(os.Environ()), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"FENCE_STORE="+store, "FENCE_COORD=", "HOME="+t.TempDir(), "NODE_PATH="+filepath.Join(awsjs, "node_modules"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("example %d: %v\n%s\n%s", i+1, err, block, out)
			}
			out, err := exec.Command(fence, "--store", store, "get", "reports/daily", "summary.csv").CombinedOutput()
			if err != nil || string(out) != "day,total\n2026-12-06,42\n" {
				t.Fatalf("example %d published summary.csv = %q (%v)\n%s", i+1, out, err, block)
			}
		})
	}
}
