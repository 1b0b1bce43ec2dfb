package deploy_test

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The release build's output: deploy/local/test.sh runs
// deploy/release/build.sh for linux/amd64 with the image and sets
// FENCE_TEST_RELEASE_DIR to it. These tests read what it wrote with the
// standard library alone, not with the libraries that wrote it.
const envRelease = "FENCE_TEST_RELEASE_DIR"

func releaseDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(envRelease)
	if dir == "" {
		t.Skipf("%s is not set: run deploy/release/build.sh and point it at the output (deploy/local/test.sh does)", envRelease)
	}
	return dir
}

// releaseVersion is the version the build names its files after: the
// one in deploy/release/VERSION, as a snapshot of an untagged commit.
func releaseVersion(t *testing.T, dir string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "fence_*_linux_amd64.tar.gz"))
	if err != nil || len(m) != 1 {
		t.Fatalf("want one fence_*_linux_amd64.tar.gz in %s, found %v (%v)", dir, m, err)
	}
	v := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m[0]), "fence_"), "_linux_amd64.tar.gz")
	want := strings.TrimSpace(string(must(os.ReadFile("release/VERSION"))))
	if v != want && !strings.HasPrefix(v, want+"-snapshot.") {
		t.Fatalf("archive version %q; want %s or %s-snapshot.<revision>", v, want, want)
	}
	return v
}

// TestReleaseSums: SHA256SUMS names every archive and SBOM, and each sum
// matches, as `sha256sum -c` checks them.
func TestReleaseSums(t *testing.T) {
	dir := releaseDir(t)
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS line %q: want \"<64 hex digits>  <name>\"", sc.Text())
		}
		got := sha256.Sum256(must(os.ReadFile(filepath.Join(dir, name))))
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: SHA-256 %x, SHA256SUMS says %s", name, got, sum)
		}
		listed[name] = true
	}
	for _, pattern := range []string{"fence_*.tar.gz", "fence_*.zip", "fence_*.cdx.json"} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, p := range m {
			if !listed[filepath.Base(p)] {
				t.Errorf("%s is not in SHA256SUMS", filepath.Base(p))
			}
		}
	}
	if len(listed) == 0 {
		t.Fatal("SHA256SUMS lists nothing")
	}
}

// TestReleaseArchive unpacks the linux/amd64 archive and runs its
// binary: --version prints the release version, and fence demo passes
// in an empty directory. The archive holds the license, the README and
// the changelog too; the SBOM beside it lists the modules linked in.
func TestReleaseArchive(t *testing.T) {
	dir := releaseDir(t)
	version := releaseVersion(t, dir)
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the linux/amd64 binary does not run on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	name := "fence_" + version + "_linux_amd64"
	root := t.TempDir()
	files := untarGz(t, filepath.Join(dir, name+".tar.gz"), root)
	for _, f := range []string{"fence", "LICENSE", "README.md", "CHANGELOG.md"} {
		if _, ok := files[name+"/"+f]; !ok {
			t.Errorf("the archive has no %s/%s (it has %v)", name, f, keys(files))
		}
	}
	bin := filepath.Join(root, name, "fence")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "fence "+version+" revision ") {
		t.Fatalf("fence --version: %v: %q; want fence %s revision <commit>", err, out, version)
	}
	work := t.TempDir()
	demo := exec.Command(bin, "demo")
	demo.Dir = work
	if out, err := demo.CombinedOutput(); err != nil || !strings.Contains(string(out), "\nOK: ") {
		t.Fatalf("fence demo from the archive: %v\n%s", err, out)
	}

	var bom struct {
		BOMFormat string `json:"bomFormat"`
		Metadata  struct {
			Component struct {
				Name, Version string
			} `json:"component"`
		} `json:"metadata"`
		Components []struct {
			Name, Version, Purl string
		} `json:"components"`
	}
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(dir, name+".cdx.json"))), &bom); err != nil {
		t.Fatal(err)
	}
	if bom.BOMFormat != "CycloneDX" || bom.Metadata.Component.Name != "fence" || bom.Metadata.Component.Version != version {
		t.Errorf("SBOM: format %q, component %+v; want CycloneDX for fence %s", bom.BOMFormat, bom.Metadata.Component, version)
	}
	found := false
	for _, c := range bom.Components {
		found = found || (c.Name == "github.com/aws/aws-sdk-go-v2" && strings.HasPrefix(c.Purl, "pkg:golang/github.com/aws/aws-sdk-go-v2@"))
	}
	if !found || len(bom.Components) < 20 {
		t.Errorf("SBOM lists %d modules, and aws-sdk-go-v2 found %v; want every module linked in", len(bom.Components), found)
	}
}

// ociIndex, ociManifest and ociConfig are the parts of the OCI image
// layout the tests read.
type ociDescriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Platform  *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
	Annotations map[string]string `json:"annotations"`
}

type ociIndex struct {
	Manifests []ociDescriptor `json:"manifests"`
}

type ociManifest struct {
	Config ociDescriptor   `json:"config"`
	Layers []ociDescriptor `json:"layers"`
}

type ociConfig struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Config       struct {
		User       string
		Env        []string
		Entrypoint []string
		WorkingDir string
		Labels     map[string]string
	} `json:"config"`
}

// TestReleaseImage reads the image from the OCI layout, checks its
// config, unpacks its layers into a directory and runs its entrypoint
// there as the image says (chroot, user, working directory,
// environment): fence --version and fence demo. Running it needs root
// (to chroot and change user), as CI has.
func TestReleaseImage(t *testing.T) {
	dir := releaseDir(t)
	version := releaseVersion(t, dir)
	layout := filepath.Join(dir, "image-oci")
	blob := func(digest string) []byte {
		algo, hexsum, _ := strings.Cut(digest, ":")
		b := must(os.ReadFile(filepath.Join(layout, "blobs", algo, hexsum)))
		if sum := sha256.Sum256(b); algo != "sha256" || hex.EncodeToString(sum[:]) != hexsum {
			t.Fatalf("blob %s does not match its digest", digest)
		}
		return b
	}
	var top ociIndex
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(layout, "index.json"))), &top); err != nil || len(top.Manifests) != 1 {
		t.Fatalf("index.json: %v, %d entries; want one", err, len(top.Manifests))
	}
	ref := "ghcr.io/fencedstore/fence:" + version
	if got := top.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; got != ref {
		t.Errorf("the layout's image is named %q, want %q", got, ref)
	}
	var idx ociIndex
	if err := json.Unmarshal(blob(top.Manifests[0].Digest), &idx); err != nil {
		t.Fatal(err)
	}
	var man ociManifest
	for _, d := range idx.Manifests {
		if d.Platform != nil && d.Platform.OS == "linux" && d.Platform.Architecture == "amd64" {
			if err := json.Unmarshal(blob(d.Digest), &man); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(man.Layers) == 0 {
		t.Fatalf("the image index has no linux/amd64 image with layers: %+v", idx)
	}
	var cfg ociConfig
	if err := json.Unmarshal(blob(man.Config.Digest), &cfg); err != nil {
		t.Fatal(err)
	}
	c := cfg.Config
	if cfg.OS != "linux" || cfg.Architecture != "amd64" || strings.Join(c.Entrypoint, " ") != "/fence" || c.User != "65532:65532" || c.WorkingDir == "" {
		t.Errorf("config: %s/%s, entrypoint %q, user %q, workdir %q; want linux/amd64, /fence, 65532:65532, a working directory", cfg.OS, cfg.Architecture, c.Entrypoint, c.User, c.WorkingDir)
	}
	for k, want := range map[string]string{"org.opencontainers.image.version": version, "org.opencontainers.image.source": "https://github.com/fencedstore/fence"} {
		if c.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], want)
		}
	}
	if len(c.Labels["org.opencontainers.image.revision"]) != 40 {
		t.Errorf("label org.opencontainers.image.revision = %q, want the commit", c.Labels["org.opencontainers.image.revision"])
	}

	root := t.TempDir()
	for _, l := range man.Layers {
		p := filepath.Join(t.TempDir(), "layer.tar.gz")
		if err := os.WriteFile(p, blob(l.Digest), 0o644); err != nil {
			t.Fatal(err)
		}
		untarGz(t, p, root)
	}
	for _, f := range []string{"fence", "etc/ssl/certs/ca-certificates.crt", "etc/passwd", "tmp"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("the image has no /%s: %v", f, err)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("running the image's entrypoint needs root (chroot and the image's user); CI runs as root")
	}
	// The test's temporary directory is private to root; the image's
	// user must reach the image's root directory (the chroot makes the
	// directories above it unreachable and irrelevant).
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	uid, gid, _ := strings.Cut(c.User, ":")
	u, _ := strconv.Atoi(uid)
	g, _ := strconv.Atoi(gid)
	run := func(args ...string) string {
		cmd := exec.Command(c.Entrypoint[0], args...)
		cmd.Path = c.Entrypoint[0]
		cmd.Dir = c.WorkingDir
		cmd.Env = c.Env
		cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: uint32(u), Gid: uint32(g)}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the image's %s %s: %v\n%s", c.Entrypoint[0], strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if out := run("--version"); !strings.HasPrefix(out, "fence "+version+" revision ") {
		t.Errorf("the image's fence --version printed %q", out)
	}
	if out := run("demo"); !strings.Contains(out, "\nOK: ") {
		t.Errorf("the image's fence demo printed:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(root, c.WorkingDir, "fence-data")); err != nil {
		t.Errorf("fence demo wrote no fence-data in the image's working directory: %v", err)
	}
}

// TestReleaseImageTarball: the tarball `docker load` reads names the
// image by its tag.
func TestReleaseImageTarball(t *testing.T) {
	dir := releaseDir(t)
	version := releaseVersion(t, dir)
	f, err := os.Open(filepath.Join(dir, "image-linux-amd64.tar"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			t.Fatal("the image tarball has no manifest.json")
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != "manifest.json" {
			continue
		}
		var m []struct{ RepoTags []string }
		if err := json.NewDecoder(tr).Decode(&m); err != nil {
			t.Fatal(err)
		}
		if want := "ghcr.io/fencedstore/fence:" + version; len(m) != 1 || len(m[0].RepoTags) != 1 || m[0].RepoTags[0] != want {
			t.Fatalf("manifest.json %+v; want one image tagged %s", m, want)
		}
		return
	}
}

// untarGz unpacks a .tar.gz into dir, with the modes and owners it
// records (owners only as root), and returns the names it held.
func untarGz(t *testing.T, path, dir string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	names := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(h.Name, "/")
		if !filepath.IsLocal(name) {
			t.Fatalf("%s: entry %q leaves the directory", path, h.Name)
		}
		names[name] = true
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(out, tr)
			out.Close()
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("%s: entry %q of type %c", path, h.Name, h.Typeflag)
		}
		if err := os.Chmod(p, os.FileMode(h.Mode).Perm()|modeBits(h.Mode)); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() == 0 {
			if err := os.Lchown(p, h.Uid, h.Gid); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// modeBits maps tar's setuid, setgid and sticky bits to Go's.
func modeBits(mode int64) os.FileMode {
	var m os.FileMode
	if mode&0o4000 != 0 {
		m |= os.ModeSetuid
	}
	if mode&0o2000 != 0 {
		m |= os.ModeSetgid
	}
	if mode&0o1000 != 0 {
		m |= os.ModeSticky
	}
	return m
}

func keys(m map[string]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	return s
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return v
}
