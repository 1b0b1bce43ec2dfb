package clients

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// expected returns what a scenario that held leaves under the prefix:
// each key (without the prefix) and the source file its bytes must equal.
func expected() map[string]string {
	want := map[string]string{
		"small.bin": "small.bin",
		"big.bin":   "big.bin",
		"copy.bin":  "small.bin",
	}
	for i := range listCount {
		k := fmt.Sprintf("list/%d", i)
		want[k] = k
	}
	return want
}

// checkStored reads back, through the target's own client, what a
// scenario left under r's prefix, and returns every way it differs from
// expected(): a missing or extra key (gone.bin among them), bytes whose
// SHA-256 is not the source's, aws-chunked framing stored as bytes.
func checkStored(ctx context.Context, r run, src string) []string {
	var problems []string
	want := expected()
	keys, err := r.keys(ctx)
	if err != nil {
		return []string{fmt.Sprintf("listing %s: %v", r.prefix(), err)}
	}
	for _, k := range keys {
		name, ok := strings.CutPrefix(k, r.prefix())
		if _, expectedKey := want[name]; !ok || !expectedKey {
			problems = append(problems, fmt.Sprintf("%s is stored; the scenario leaves no such key", k))
		}
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		key := r.prefix() + name
		wantBytes, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(want[name])))
		if err != nil {
			return append(problems, fmt.Sprintf("reading source %s: %v", want[name], err))
		}
		got, err := r.read(ctx, key)
		if err != nil {
			problems = append(problems, fmt.Sprintf("reading %s: %v", key, err))
			continue
		}
		if f := framing(got); f != "" {
			problems = append(problems, fmt.Sprintf("%s holds aws-chunked framing (%s): the client's request body was stored undecoded", key, f))
		}
		if g, w := sha256.Sum256(got), sha256.Sum256(wantBytes); g != w {
			problems = append(problems, fmt.Sprintf("%s: %d bytes with SHA-256 %x; source %s: %d bytes with SHA-256 %x", key, len(got), g, want[name], len(wantBytes), w))
		}
	}
	gone := r.prefix() + "gone.bin"
	if b, err := r.read(ctx, gone); !errors.Is(err, errNotFound) {
		if err == nil {
			problems = append(problems, fmt.Sprintf("%s holds %d bytes; the scenario deleted it", gone, len(b)))
		} else {
			problems = append(problems, fmt.Sprintf("reading %s, which must not exist: %v", gone, err))
		}
	}
	return problems
}

// framing names the aws-chunked framing in b, or returns "": a chunk
// signature, a checksum trailer, or a final zero-length chunk near the
// end. In random bytes of these sizes any of them by chance is far less
// likely than one in a million.
func framing(b []byte) string {
	switch {
	case bytes.Contains(b, []byte(";chunk-signature=")):
		return `";chunk-signature="`
	case bytes.Contains(b, []byte("x-amz-checksum-")):
		return `"x-amz-checksum-"`
	case bytes.Contains(b[max(0, len(b)-256):], []byte("\r\n0\r\n")):
		return `"\r\n0\r\n" in the last 256 bytes`
	}
	return ""
}
