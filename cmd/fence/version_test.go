package main

import (
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// --version prints the build's module version: "(devel)" from a work
// tree, with the VCS revision when the build recorded one.
func TestVersion(t *testing.T) {
	c := newCLI(t)
	r := c.want(0, "", "--version")
	if !regexp.MustCompile(`^fence (v\S+|\(devel\))( revision [0-9a-f]+( \(modified\))?)?\n$`).MatchString(r.stdout) {
		t.Fatalf("--version printed %q", r.stdout)
	}
	for _, tt := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{debug.BuildInfo{}, "(devel)"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "1a2b3c"}, {Key: "vcs.modified", Value: "true"}}}, "(devel) revision 1a2b3c (modified)"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "1a2b3c"}, {Key: "vcs.modified", Value: "false"}}}, "(devel) revision 1a2b3c"},
	} {
		if got := versionOf(&tt.bi); got != tt.want {
			t.Errorf("versionOf(%+v) = %q, want %q", tt.bi, got, tt.want)
		}
	}
}

// --quiet drops put's, rm's and gc's summary lines, keeps their data
// (--json) and errors.
func TestQuiet(t *testing.T) {
	c := newCLI(t)
	t1 := tok(c.acquire("d"))
	for _, args := range [][]string{
		{"--quiet", "put", "d", "k", "-", "--token", t1},
		{"-q", "rm", "d", "k", "--token", t1},
		{"gc", "d", "-q"},
	} {
		if r := c.want(0, "x", args...); r.stdout != "" || r.stderr != "" {
			t.Errorf("fence %q printed %s", args, r)
		}
	}
	if r := c.want(0, "x", "-q", "--json", "put", "d", "k", "-", "--token", t1); !strings.Contains(r.stdout, `"seq"`) {
		t.Errorf("put -q --json printed %q, want the commit", r.stdout)
	}
	if r := c.want(exitError, "", "-q", "get", "d", "missing"); !strings.Contains(r.stderr, "not found") {
		t.Errorf("get -q of a missing key: stderr %q", r.stderr)
	}
}

// fence completion SHELL prints a completion script for bash, zsh and
// fish (it used to be disabled).
func TestCompletion(t *testing.T) {
	c := newCLI(t)
	for shell, want := range map[string]string{"bash": "complete -o default -F __start_fence fence", "zsh": "#compdef fence", "fish": "complete -c fence"} {
		if r := c.want(0, "", "completion", shell); !strings.Contains(r.stdout, want) {
			t.Errorf("completion %s: stdout does not contain %q:\n%.300s", shell, want, r.stdout)
		}
	}
}
