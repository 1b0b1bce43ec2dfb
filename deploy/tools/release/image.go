package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image: where it is meant to be pushed (docs/deploy.md; nothing is
// pushed from here), where its files go in out/, and the user it runs as
// (distroless's "nonroot").
const (
	imageRepo      = "ghcr.io/fencedstore/fence"
	imageLayoutDir = "image-oci"
	imageSource    = "https://github.com/fencedstore/fence"
	nonrootID      = 65532
	nonrootHome    = "/home/nonroot"
	certsPath      = "/etc/ssl/certs/ca-certificates.crt"
)

// imageTarball is the tarball of the image for one architecture, in the
// format `docker load` and `podman load` read.
func imageTarball(arch string) string { return "image-linux-" + arch + ".tar" }

// writeImage builds one image per linux binary, on an empty base (no
// base image is fetched), and writes them under one index in the OCI
// layout, out/image-oci, tagged imageRepo:<version>, and each as a
// tarball. It returns the image reference.
func writeImage(out string, rel release, bins []built, certsFile string) (string, error) {
	certs, err := os.ReadFile(certsFile)
	if err != nil {
		return "", fmt.Errorf("the image's CA certificates (Debian: apt-get install ca-certificates): %w", err)
	}
	ref := imageRepo + ":" + rel.Version
	tag, err := name.NewTag(ref)
	if err != nil {
		return "", fmt.Errorf("image reference %q: %w", ref, err)
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, b := range bins {
		img, err := buildImage(rel, b, certs)
		if err != nil {
			return "", err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: b.target.Arch}},
		})
		if err := tarball.WriteToFile(filepath.Join(out, imageTarball(b.target.Arch)), tag, img); err != nil {
			return "", fmt.Errorf("write the image tarball for %s: %w", b.target, err)
		}
	}
	p, err := layout.Write(filepath.Join(out, imageLayoutDir), empty.Index)
	if err != nil {
		return "", err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": ref,
	})); err != nil {
		return "", fmt.Errorf("write the OCI layout: %w", err)
	}
	return ref, nil
}

// buildImage is one architecture's image: one layer with the binary at
// /fence, the CA certificates, /etc/passwd and /etc/group naming the
// non-root user, its home and /tmp; run as that user from its home.
func buildImage(rel release, b built, certs []byte) (v1.Image, error) {
	bin, err := os.ReadFile(b.path)
	if err != nil {
		return nil, err
	}
	layerTar, err := rootfs(rel.Time, bin, certs)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", b.target.Arch
	cf.Created = v1.Time{Time: rel.Time}
	cf.Author = imageSource
	cf.Config = v1.Config{
		Entrypoint: []string{"/fence"},
		User:       fmt.Sprintf("%d:%d", nonrootID, nonrootID),
		WorkingDir: nonrootHome,
		Env: []string{
			"PATH=/",
			"HOME=" + nonrootHome,
			"SSL_CERT_FILE=" + certsPath,
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "fence",
			"org.opencontainers.image.description": "fencing tokens that the object store enforces",
			"org.opencontainers.image.source":      imageSource,
			"org.opencontainers.image.version":     rel.Version,
			"org.opencontainers.image.revision":    rel.Revision,
			"org.opencontainers.image.created":     rel.Time.Format(time.RFC3339),
		},
	}
	return mutate.ConfigFile(img, cf)
}

// rootfs is the image's one layer, as an uncompressed tar.
func rootfs(stamp time.Time, bin, certs []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64, id int) error {
		return tw.WriteHeader(&tar.Header{Name: name + "/", Typeflag: tar.TypeDir, Mode: mode, Uid: id, Gid: id, ModTime: stamp, Format: tar.FormatPAX})
	}
	file := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: mode, Size: int64(len(data)), ModTime: stamp, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", nonrootID, nonrootID, nonrootHome)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonrootID)
	steps := []func() error{
		func() error { return dir("etc", 0o755, 0) },
		func() error { return file("etc/passwd", 0o644, []byte(passwd)) },
		func() error { return file("etc/group", 0o644, []byte(group)) },
		func() error { return dir("etc/ssl", 0o755, 0) },
		func() error { return dir("etc/ssl/certs", 0o755, 0) },
		func() error { return file(certsPath[1:], 0o644, certs) },
		func() error { return file("fence", 0o755, bin) },
		func() error { return dir("home", 0o755, 0) },
		func() error { return dir(nonrootHome[1:], 0o700, nonrootID) },
		func() error { return dir("tmp", 0o1777, 0) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
