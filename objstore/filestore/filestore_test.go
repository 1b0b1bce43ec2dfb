package filestore_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fencedstore/fence/rules"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/filestore"
)

func open(t *testing.T) (*filestore.Backend, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store", "nested")
	b, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return b, dir
}

func put(t *testing.T, b *filestore.Backend, key, data string, opts driver.PutOptions) driver.ObjectInfo {
	t.Helper()
	info, err := b.Put(t.Context(), key, strings.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
	return info
}

func list(t *testing.T, b *filestore.Backend, prefix string) []string {
	t.Helper()
	var keys []string
	if err := b.List(t.Context(), prefix, func(o driver.ObjectInfo) error {
		keys = append(keys, o.Key)
		return nil
	}); err != nil {
		t.Fatalf("List(%q): %v", prefix, err)
	}
	return keys
}

// tree returns the paths of all files and directories under dir except
// the lock files.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == "." || strings.HasPrefix(rel, ".fence-locks"+string(filepath.Separator)) {
			return nil
		}
		paths = append(paths, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

func TestLayout(t *testing.T) {
	b, dir := open(t)
	info := put(t, b, "Reports/2024 Q1/sum@v1%", "hello", driver.PutOptions{})
	put(t, b, "Reports", "top", driver.PutOptions{})
	want := []string{".fence-locks", ".fence-tmp", "d.%52eports", "d.%52eports/d.2024%20%511", "d.%52eports/d.2024%20%511/f.sum%40v1%25", "f.%52eports"}
	if got := tree(t, dir); !slices.Equal(got, want) {
		t.Fatalf("tree = %q, want %q", got, want)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "d.%52eports/d.2024%20%511/f.sum%40v1%25"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("hello"))
	if want := "FENCE1 " + hex.EncodeToString(sum[:]) + "\nhello"; string(raw) != want {
		t.Fatalf("file holds %q, want %q", raw, want)
	}
	if info.ETag != hex.EncodeToString(sum[:]) || info.Size != 5 {
		t.Fatalf("Put returned %+v", info)
	}
	if b.Dir() != dir {
		t.Fatalf("Dir() = %q, want %q", b.Dir(), dir)
	}
}

func TestOpenNamesPath(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := filestore.Open(file)
	if err == nil || !strings.Contains(err.Error(), file) {
		t.Fatalf("Open(a file) error = %v, want one naming %s", err, file)
	}
}

func TestReopenSeesObjects(t *testing.T) {
	b, dir := open(t)
	put(t, b, "k", "v", driver.PutOptions{})
	b2, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := drivertest.ReadString(t, b2, "k"); got != "v" {
		t.Fatalf("Get after reopening = %q", got)
	}
}

func TestLongSegmentRejected(t *testing.T) {
	b, _ := open(t)
	ok := strings.Repeat("a", filestore.MaxSegmentLen)
	put(t, b, ok+"/"+ok, "x", driver.PutOptions{})
	for _, key := range []string{
		strings.Repeat("a", filestore.MaxSegmentLen+1),
		"dir/" + strings.Repeat("A", filestore.MaxSegmentLen/3+1) + "/x",
		strings.Repeat("é", filestore.MaxSegmentLen/6+1),
	} {
		_, err := b.Put(t.Context(), key, strings.NewReader("x"), 1, driver.PutOptions{})
		if !errors.Is(err, rules.ErrInvalid) || !strings.Contains(err.Error(), key) {
			t.Errorf("Put(%d-byte segment) error = %v, want ErrInvalid naming the key", len(key), err)
		}
		if _, err := b.Head(t.Context(), key); !errors.Is(err, rules.ErrInvalid) {
			t.Errorf("Head(%d-byte segment) error = %v, want ErrInvalid", len(key), err)
		}
	}
	if _, err := b.Head(t.Context(), ""); !errors.Is(err, rules.ErrInvalid) {
		t.Errorf("Head(\"\") error = %v, want ErrInvalid", err)
	}
}

func TestBadHeaderIsAnError(t *testing.T) {
	for name, raw := range map[string]string{
		"short":    "FENCE1 abc",
		"empty":    "",
		"magic":    "FENCE2 " + strings.Repeat("0", 64) + "\ndata",
		"not hex":  "FENCE1 " + strings.Repeat("z", 64) + "\ndata",
		"no break": "FENCE1 " + strings.Repeat("0", 64) + " data",
	} {
		t.Run(name, func(t *testing.T) {
			b, dir := open(t)
			put(t, b, "d/k", "good", driver.PutOptions{})
			path := filepath.Join(dir, "d.d", "f.k")
			if err := os.WriteFile(path, []byte(raw), 0o644); err != nil {
				t.Fatal(err)
			}
			check := func(op string, err error) {
				t.Helper()
				if err == nil || errors.Is(err, driver.ErrNotFound) || !strings.Contains(err.Error(), path) {
					t.Errorf("%s of a file with a bad header: error = %v, want one naming %s", op, err, path)
				}
			}
			_, err := b.Head(t.Context(), "d/k")
			check("Head", err)
			_, _, err = b.Get(t.Context(), "d/k", driver.GetOptions{})
			check("Get", err)
			check("List", b.List(t.Context(), "d/", func(driver.ObjectInfo) error { return nil }))
			_, err = b.Put(t.Context(), "d/k", strings.NewReader("x"), 1, driver.PutOptions{Mode: driver.Update{ETag: strings.Repeat("0", 64)}})
			check("Put(If-Match)", err)
			// Unconditional writes and deletes still repair the object.
			put(t, b, "d/k", "repaired", driver.PutOptions{})
			if got := drivertest.ReadString(t, b, "d/k"); got != "repaired" {
				t.Fatalf("Get after repair = %q", got)
			}
		})
	}
}

func TestListSkipsInternalsAndStrangers(t *testing.T) {
	b, dir := open(t)
	put(t, b, "a", "1", driver.PutOptions{})
	put(t, b, ".fence-tmp", "2", driver.PutOptions{})
	put(t, b, ".fence-locks/x", "3", driver.PutOptions{})
	os.WriteFile(filepath.Join(dir, ".DS_Store"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "README"), nil, 0o644)
	if got, want := list(t, b, ""), []string{".fence-locks/x", ".fence-tmp", "a"}; !slices.Equal(got, want) {
		t.Fatalf("List(\"\") = %q, want %q", got, want)
	}
}

// TestListReadsOnlyMatchingDirectories plants a file that List reports as
// an error wherever it reads it, then lists prefixes that must not lead
// there.
func TestListReadsOnlyMatchingDirectories(t *testing.T) {
	b, dir := open(t)
	put(t, b, "p/q/k", "1", driver.PutOptions{})
	put(t, b, "p/r/k", "2", driver.PutOptions{})
	put(t, b, "other/k", "3", driver.PutOptions{})
	for _, d := range []string{"d.other", "d.p/d.r"} {
		if err := os.WriteFile(filepath.Join(dir, d, "f.%zz"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for prefix, want := range map[string][]string{
		"p/q":   {"p/q/k"},
		"p/q/":  {"p/q/k"},
		"p/q/k": {"p/q/k"},
		"p/s":   nil,
	} {
		if got := list(t, b, prefix); !slices.Equal(got, want) {
			t.Errorf("List(%q) = %q, want %q", prefix, got, want)
		}
	}
	for _, prefix := range []string{"", "p/", "o", "other/"} {
		err := b.List(t.Context(), prefix, func(driver.ObjectInfo) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "f.%zz") {
			t.Errorf("List(%q) error = %v, want one naming the planted file", prefix, err)
		}
	}
}

func TestDeleteRemovesEmptyDirectories(t *testing.T) {
	b, dir := open(t)
	put(t, b, "a/b/c/k1", "1", driver.PutOptions{})
	put(t, b, "a/k2", "2", driver.PutOptions{})
	if err := b.Delete(t.Context(), "a/b/c/k1"); err != nil {
		t.Fatal(err)
	}
	want := []string{".fence-locks", ".fence-tmp", "d.a", "d.a/f.k2"}
	if got := tree(t, dir); !slices.Equal(got, want) {
		t.Fatalf("tree = %q, want %q", got, want)
	}
	if err := b.Delete(t.Context(), "a/k2"); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dir); !slices.Equal(got, want[:2]) {
		t.Fatalf("tree = %q, want %q", got, want[:2])
	}
}

// TestPutSurvivesConcurrentDeletes races puts into a directory against
// deletes that keep emptying and removing it.
func TestPutSurvivesConcurrentDeletes(t *testing.T) {
	b, _ := open(t)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				key := fmt.Sprintf("x/y/z/w%d-%d", w, i)
				if _, err := b.Put(t.Context(), key, strings.NewReader("v"), 1, driver.PutOptions{Mode: driver.Create{}}); err != nil {
					t.Errorf("Put(%q): %v", key, err)
					return
				}
				if err := b.Delete(t.Context(), key); err != nil {
					t.Errorf("Delete(%q): %v", key, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := list(t, b, ""); len(got) != 0 {
		t.Fatalf("List after all deletes = %q", got)
	}
}

func TestFailedPutLeavesNothing(t *testing.T) {
	b, dir := open(t)
	put(t, b, "k", "v1", driver.PutOptions{})
	if _, err := b.Put(t.Context(), "k", strings.NewReader("v2"), 2, driver.PutOptions{Mode: driver.Create{}}); !errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("error = %v, want ErrPreconditionFailed", err)
	}
	for _, size := range []int64{1, 3} {
		if _, err := b.Put(t.Context(), "k", strings.NewReader("v3"), size, driver.PutOptions{}); err == nil {
			t.Fatalf("Put of 2 bytes with size %d succeeded", size)
		}
	}
	if got := drivertest.ReadString(t, b, "k"); got != "v1" {
		t.Fatalf("Get = %q, want v1", got)
	}
	if tmp, _ := os.ReadDir(filepath.Join(dir, ".fence-tmp")); len(tmp) != 0 {
		t.Fatalf(".fence-tmp holds %d leftover files", len(tmp))
	}
}

func TestReaderSeesOneVersion(t *testing.T) {
	b, _ := open(t)
	v1 := bytes.Repeat([]byte("1"), 1<<20)
	if _, err := b.Put(t.Context(), "k", bytes.NewReader(v1), int64(len(v1)), driver.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	rc, info, err := b.Get(t.Context(), "k", driver.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	head := make([]byte, 10)
	if _, err := io.ReadFull(rc, head); err != nil {
		t.Fatal(err)
	}
	put(t, b, "k", "2", driver.PutOptions{})
	if err := b.Delete(t.Context(), "k"); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if got := append(head, rest...); !bytes.Equal(got, v1) || info.Size != int64(len(v1)) {
		t.Fatalf("reader opened before an overwrite and a delete returned %d bytes of a %d-byte version", len(got), len(v1))
	}
	if _, ok := rc.(io.Seeker); ok {
		t.Fatal("Get's reader can seek back into the header")
	}
}
