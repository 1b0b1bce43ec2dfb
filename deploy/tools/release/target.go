package main

import (
	"fmt"
	"strings"
)

// allTargets are the platforms a release is built for.
var allTargets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64"}

// target is one GOOS/GOARCH pair.
type target struct{ OS, Arch string }

func (t target) String() string { return t.OS + "/" + t.Arch }

// exe is the binary's file name on the target.
func (t target) exe() string {
	if t.OS == "windows" {
		return "fence.exe"
	}
	return "fence"
}

func parseTargets(list string) ([]target, error) {
	var ts []target
	seen := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		os, arch, ok := strings.Cut(s, "/")
		if !ok || os == "" || arch == "" {
			return nil, fmt.Errorf("target %q: want GOOS/GOARCH, for example linux/amd64", s)
		}
		if seen[s] {
			return nil, fmt.Errorf("target %q given twice", s)
		}
		seen[s] = true
		ts = append(ts, target{OS: os, Arch: arch})
	}
	return ts, nil
}
