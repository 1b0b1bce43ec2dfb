// Command release builds fence's release artifacts from a clone of the
// repository, with no network and no container daemon:
//
//   - a static fence for each target (CGO_ENABLED=0, -trimpath, the
//     version and the VCS revision recorded by the Go toolchain);
//   - an archive per target (.tar.gz, or .zip for windows) holding the
//     binary, LICENSE, README.md and CHANGELOG.md;
//   - a CycloneDX SBOM per binary, from the module list the binary carries;
//   - SHA256SUMS over every archive and SBOM;
//   - with -image, a container image of the linux binaries (one per
//     architecture, under one index) in the OCI layout and as a tarball
//     that `docker load` and `podman load` read, on an empty base: the
//     binary, Debian's CA certificates and a non-root user.
//
// Usage, from the repository root (deploy/release/build.sh wraps it):
//
//	go run ./deploy/tools/release -repo . -out dist -targets linux/amd64 -image
//
// docs/release.md says why this is a short program and not GoReleaser.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	var (
		repo    = flag.String("repo", ".", "the repository's root")
		out     = flag.String("out", "dist", "the directory to write the artifacts to (emptied first)")
		targets = flag.String("targets", strings.Join(allTargets, ","), "comma-separated GOOS/GOARCH pairs")
		version = flag.String("version", "", "the release version, vX.Y.Z (default: deploy/release/VERSION, with -snapshot appended unless the commit is tagged with it)")
		image   = flag.Bool("image", false, "also build the container image of the linux targets")
		certs   = flag.String("ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "the CA certificate bundle to put in the image (Debian's ca-certificates)")
	)
	flag.Parse()
	if err := run(*repo, *out, *targets, *version, *image, *certs); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(repo, out, targetList, version string, image bool, certs string) error {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	targets, err := parseTargets(targetList)
	if err != nil {
		return err
	}
	rel, err := resolveVersion(repo, version)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "release: fence %s (revision %s) for %s into %s\n", rel.Version, rel.Revision, targetList, out)
	var sums []string
	var linux []built
	for _, t := range targets {
		b, err := buildBinary(repo, out, rel, t)
		if err != nil {
			return err
		}
		archive, err := writeArchive(repo, out, rel, b)
		if err != nil {
			return err
		}
		sbom, err := writeSBOM(out, rel, b)
		if err != nil {
			return err
		}
		sums = append(sums, archive, sbom)
		if t.OS == "linux" {
			linux = append(linux, b)
		}
		fmt.Fprintf(os.Stderr, "release: %s, %s\n", filepath.Base(archive), filepath.Base(sbom))
	}
	if err := writeSums(out, sums); err != nil {
		return err
	}
	if image {
		if len(linux) == 0 {
			return fmt.Errorf("-image needs a linux target")
		}
		ref, err := writeImage(out, rel, linux, certs)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "release: image %s in %s, and image-linux-ARCH.tar\n", ref, filepath.Join(out, imageLayoutDir))
	}
	return nil
}
