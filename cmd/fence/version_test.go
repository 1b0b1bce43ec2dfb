package main

import (
	"regexp"
	"runtime/debug"
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
		bi      debug.BuildInfo
		release string
		want    string
	}{
		// go install github.com/fencedstore/fence/cmd/fence@v1.2.3
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "", "v1.2.3"},
		{debug.BuildInfo{}, "", "(devel)"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "1a2b3c"}, {Key: "vcs.modified", Value: "true"}}}, "", "(devel) revision 1a2b3c (modified)"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "1a2b3c"}, {Key: "vcs.modified", Value: "false"}}}, "", "(devel) revision 1a2b3c"},
		// The release build.
		{debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261202-1a2b3c"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "1a2b3c"}}}, "v0.1.0", "v0.1.0 revision 1a2b3c"},
	} {
		if got := versionOf(&tt.bi, tt.release); got != tt.want {
			t.Errorf("versionOf(%+v) = %q, want %q", tt.bi, got, tt.want)
		}
	}
}
