package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// archiveFiles are the repository's files every archive holds beside
// the binary.
var archiveFiles = []string{"LICENSE", "README.md", "CHANGELOG.md"}

// archiveName is fence_<version>_<os>_<arch>, without its extension.
func archiveName(rel release, t target) string {
	return fmt.Sprintf("fence_%s_%s_%s", rel.Version, t.OS, t.Arch)
}

// writeArchive packs b's binary and archiveFiles into one directory
// named like the archive, as .zip for windows and .tar.gz elsewhere. Its
// entries carry the commit's time, so the same commit packs the same
// bytes.
func writeArchive(repo, out string, rel release, b built) (string, error) {
	stamp := rel.Time
	name := archiveName(rel, b.target)
	files := []archiveEntry{{src: b.path, name: b.target.exe(), mode: 0o755}}
	for _, f := range archiveFiles {
		files = append(files, archiveEntry{src: filepath.Join(repo, f), name: f, mode: 0o644})
	}
	if b.target.OS == "windows" {
		path := filepath.Join(out, name+".zip")
		return path, writeZip(path, name, files, stamp)
	}
	path := filepath.Join(out, name+".tar.gz")
	return path, writeTarGz(path, name, files, stamp)
}

type archiveEntry struct {
	src, name string
	mode      int64
}

func writeTarGz(path, dir string, files []archiveEntry, stamp time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, e := range files {
		data, err := os.ReadFile(e.src)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: dir + "/" + e.name, Mode: e.mode, Size: int64(len(data)), ModTime: stamp, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return f.Close()
}

func writeZip(path, dir string, files []archiveEntry, stamp time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for _, e := range files {
		src, err := os.Open(e.src)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: dir + "/" + e.name, Method: zip.Deflate, Modified: stamp}
		hdr.SetMode(os.FileMode(e.mode))
		w, err := zw.CreateHeader(hdr)
		if err == nil {
			_, err = io.Copy(w, src)
		}
		src.Close()
		if err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
