package main

import (
	"runtime/debug"
)

// buildVersion is the version --version prints: the main module's
// version from the build information, "(devel)" for a build from a work
// tree, followed by the VCS revision when the build recorded one.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown: no build information)"
	}
	return versionOf(bi)
}

// versionOf formats bi's main module version and VCS revision:
// "v1.2.3", "(devel)", "(devel) revision 1a2b3c (modified)".
func versionOf(bi *debug.BuildInfo) string {
	v := bi.Main.Version
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
