package main

import (
	"runtime/debug"
)

// releaseVersion and releaseRevision are the version and the commit the
// release build stamps (deploy/tools/release: -ldflags "-X
// main.releaseVersion=v0.1.0 -X main.releaseRevision=<commit>"); empty
// in any other build.
var releaseVersion, releaseRevision string

// buildVersion is the version --version prints: the release's, else the
// main module's version from the build information (the version `go
// install MODULE/cmd/fence@VERSION` installed, or the one the toolchain
// derived from the clone's VCS tags; "(devel)" without one), followed by
// the VCS revision when the build recorded one.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown: no build information)"
	}
	if releaseRevision != "" {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.revision", Value: releaseRevision})
	}
	return versionOf(bi, releaseVersion)
}

// versionOf formats the release version, or else bi's main module
// version, and bi's VCS revision: "v1.2.3", "(devel)", "(devel)
// revision 1a2b3c (modified)".
func versionOf(bi *debug.BuildInfo, release string) string {
	v := bi.Main.Version
	if release != "" {
		v = release
	}
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		v += " revision " + rev
		if modified == "true" {
			v += " (modified)"
		}
	}
	return v
}
