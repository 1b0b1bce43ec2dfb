package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// built is one target's binary.
type built struct {
	target target
	path   string
}

// buildBinary builds a static fence for t into out/build/<os>_<arch>/.
// The toolchain records the module list in the binary; -X stamps the
// release version and the commit that --version prints (the toolchain's
// own VCS stamp is not relied on: GOFLAGS=-buildvcs=false, or a git
// worktree, leaves it out).
func buildBinary(repo, out string, rel release, t target) (built, error) {
	dir := filepath.Join(out, "build", t.OS+"_"+t.Arch)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return built{}, err
	}
	path := filepath.Join(dir, t.exe())
	cmd := exec.Command("go", "build", "-trimpath",
		"-ldflags", "-s -w -X main.releaseVersion="+rel.Version+" -X main.releaseRevision="+rel.Revision,
		"-o", path, "./cmd/fence")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch, "GOFLAGS=-mod=readonly")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return built{}, fmt.Errorf("build fence for %s: %v\n%s", t, err, strings.TrimSpace(string(msg)))
	}
	return built{target: t, path: path}, nil
}
