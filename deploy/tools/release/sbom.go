package main

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

// writeSBOM writes a CycloneDX SBOM (JSON) of b's binary beside its
// archive: every module linked into it, from the build information the
// Go toolchain recorded in the binary itself (what `go version -m`
// prints), so the list is of what was built, not of go.mod.
func writeSBOM(out string, rel release, b built) (string, error) {
	bi, err := buildinfo.ReadFile(b.path)
	if err != nil {
		return "", fmt.Errorf("read the build information of %s: %w", b.path, err)
	}
	stamp := rel.Time
	bom := cdx.NewBOM()
	bom.SerialNumber = "" // the same commit gives the same SBOM
	main := cdx.Component{
		BOMRef:     purl(bi.Main.Path, rel.Version),
		Type:       cdx.ComponentTypeApplication,
		Name:       "fence",
		Version:    rel.Version,
		PackageURL: purl(bi.Main.Path, rel.Version),
		Properties: &[]cdx.Property{
			{Name: "go:toolchain", Value: bi.GoVersion},
			{Name: "go:os", Value: b.target.OS},
			{Name: "go:arch", Value: b.target.Arch},
			{Name: "vcs:revision", Value: rel.Revision},
		},
	}
	bom.Metadata = &cdx.Metadata{Timestamp: stamp.UTC().Format(time.RFC3339), Component: &main,
		Tools: &cdx.ToolsChoice{Components: &[]cdx.Component{{Type: cdx.ComponentTypeApplication, Name: "fence deploy/tools/release"}}}}
	var comps []cdx.Component
	var deps []string
	for _, m := range bi.Deps {
		if m.Replace != nil {
			m = m.Replace
		}
		c := cdx.Component{
			BOMRef:     purl(m.Path, m.Version),
			Type:       cdx.ComponentTypeLibrary,
			Name:       m.Path,
			Version:    m.Version,
			PackageURL: purl(m.Path, m.Version),
		}
		if m.Sum != "" {
			c.Properties = &[]cdx.Property{{Name: "go:module:sum", Value: m.Sum}}
		}
		comps = append(comps, c)
		deps = append(deps, c.BOMRef)
	}
	bom.Components = &comps
	bom.Dependencies = &[]cdx.Dependency{{Ref: main.BOMRef, Dependencies: &deps}}
	path := filepath.Join(out, archiveName(rel, b.target)+".cdx.json")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	enc := cdx.NewBOMEncoder(f, cdx.BOMFileFormatJSON)
	enc.SetPretty(true)
	if err := enc.Encode(bom); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, f.Close()
}

// purl is a Go module's package URL (pkg:golang/...), as the purl
// specification spells it: the namespace lower-cased is not required for
// golang, so the path is kept as it is.
func purl(path, version string) string {
	return "pkg:golang/" + strings.TrimSuffix(path, "/") + "@" + version
}
