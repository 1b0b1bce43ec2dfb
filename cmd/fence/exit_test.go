package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// The exit codes are one table, in docs/cli.md and in 'fence --help',
// and both list exactly the codes the CLI has.
func TestExitCodesDocumented(t *testing.T) {
	want := []string{"0", "1", "2", "3", "4", "5", "126", "127", "129", "130", "131", "143"}
	have := []int{exitOK, exitError, exitUsage, exitFenced, exitHeld, exitLost, exitCannotRun, exitNotFound,
		(&interrupted{sig: syscall.SIGHUP}).exitCode(), (&interrupted{sig: syscall.SIGINT}).exitCode(),
		(&interrupted{sig: syscall.SIGQUIT}).exitCode(), (&interrupted{sig: syscall.SIGTERM}).exitCode()}
	for i, code := range have {
		if want[i] != tok(uint64(code)) {
			t.Errorf("exit code %d is %d in the code, %s in this test", i, code, want[i])
		}
	}

	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "\n## Exit codes\n")
	if !ok {
		t.Fatal("docs/cli.md has no '## Exit codes' section")
	}
	table, _, _ = strings.Cut(table, "\n\n## ")
	if got := regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(table, -1); !slices.Equal(firsts(got), want) {
		t.Errorf("docs/cli.md's exit code table lists %q, want %q", firsts(got), want)
	}

	r := newCLI(t).want(0, "", "--help")
	_, help, ok := strings.Cut(r.stdout, "\nExit codes:\n")
	if !ok {
		t.Fatalf("fence --help has no 'Exit codes:' table:\n%s", r.stdout)
	}
	help, _, _ = strings.Cut(help, "\n\n")
	if got := regexp.MustCompile(`(?m)^  (\d+) `).FindAllStringSubmatch(help, -1); !slices.Equal(firsts(got), want) {
		t.Errorf("fence --help's exit codes are %q, want %q", firsts(got), want)
	}
}

// firsts returns the first group of each match.
func firsts(m [][]string) []string {
	var s []string
	for _, g := range m {
		s = append(s, g[1])
	}
	return s
}

// TestStoreFlagNamesEveryScheme keeps --store's help in step with the
// schemes config accepts: a registered scheme (gs://, azblob://) missing
// from it sends a user to the docs for what the binary takes.
func TestStoreFlagNamesEveryScheme(t *testing.T) {
	r := newCLI(t).want(0, "", "--help")
	line := regexp.MustCompile(`(?m)^.*--store URL.*$`).FindString(r.stdout)
	for _, scheme := range []string{"file://", "mem://", "s3://", "minio://", "gs://", "azblob://"} {
		if !strings.Contains(line, scheme) {
			t.Errorf("fence --help's --store line does not name %s: %q", scheme, line)
		}
	}
}
