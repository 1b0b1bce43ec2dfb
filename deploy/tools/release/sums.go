package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// writeSums writes out/SHA256SUMS in sha256sum's format ("<hex>  <name>"),
// one line per file, sorted by name: `sha256sum -c SHA256SUMS` checks it.
func writeSums(out string, paths []string) error {
	var lines []string
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%s  %s", hex.EncodeToString(h.Sum(nil)), filepath.Base(p)))
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][66:] < lines[j][66:] })
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
