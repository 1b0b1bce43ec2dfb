package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// release names what is being built.
type release struct {
	// Version is vX.Y.Z for a tagged commit, vX.Y.Z-snapshot.<short
	// revision> otherwise.
	Version  string
	Revision string // the commit, in full
	Dirty    bool   // the work tree had changes
	// Time is the commit's time: every file the release writes carries
	// it, so the same commit gives the same bytes.
	Time time.Time
}

var semver = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)

// resolveVersion returns the version: the one given, or the one in
// deploy/release/VERSION, as a snapshot of the current commit unless the
// commit is tagged with it.
func resolveVersion(repo, version string) (release, error) {
	rev, err := git(repo, "rev-parse", "HEAD")
	if err != nil {
		return release{}, fmt.Errorf("the commit to build: %w", err)
	}
	status, err := git(repo, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return release{}, err
	}
	when, err := git(repo, "show", "-s", "--format=%cI", "HEAD")
	if err != nil {
		return release{}, err
	}
	t, err := time.Parse(time.RFC3339, when)
	if err != nil {
		return release{}, fmt.Errorf("the commit's time %q: %w", when, err)
	}
	r := release{Revision: rev, Dirty: status != "", Time: t.UTC()}
	if version != "" {
		r.Version = version
		return r, nil
	}
	raw, err := os.ReadFile(filepath.Join(repo, "deploy", "release", "VERSION"))
	if err != nil {
		return release{}, err
	}
	next := strings.TrimSpace(string(raw))
	if !semver.MatchString(next) {
		return release{}, fmt.Errorf("deploy/release/VERSION holds %q, want vX.Y.Z", next)
	}
	tags, _ := git(repo, "tag", "--points-at", "HEAD")
	for _, t := range strings.Fields(tags) {
		if t == next && !r.Dirty {
			r.Version = next
			return r, nil
		}
	}
	r.Version = next + "-snapshot." + rev[:12]
	return r, nil
}

func git(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
