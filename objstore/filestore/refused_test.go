package filestore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/filestore"
)

// TestRefusalsAreNamedAndPermanent: a full disk, a permission refused and
// a read-only file system are reported as such, naming the file, with a
// driver class that matches driver.ErrPermanent, so nothing retries them;
// and nothing is stored.
func TestRefusalsAreNamedAndPermanent(t *testing.T) {
	for _, tc := range []struct {
		op    string
		errno syscall.Errno
		class error
		says  string
	}{
		{"write", syscall.ENOSPC, driver.ErrNoSpace, "no space left on device"},
		{"open", syscall.EACCES, driver.ErrPermission, "permission denied"},
		{"open", syscall.EPERM, driver.ErrPermission, "operation not permitted"},
		{"open", syscall.EROFS, driver.ErrReadOnly, "read-only file system"},
	} {
		t.Run(tc.errno.Error(), func(t *testing.T) {
			b, dir := open(t)
			filestore.InjectErrno(b, tc.op, tc.errno)
			_, err := b.Put(t.Context(), "k", strings.NewReader("x"), 1, driver.PutOptions{})
			switch {
			case !errors.Is(err, tc.class) || !errors.Is(err, driver.ErrPermanent):
				t.Fatalf("err = %v, want %v, permanent", err, tc.class)
			case !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), filepath.Join(dir, ".fence-tmp")):
				t.Fatalf("err = %v, want it to say %q and name the file", err, tc.says)
			}
			if keys := list(t, b, ""); len(keys) != 0 {
				t.Fatalf("stored %v", keys)
			}
		})
	}
}

// TestFullDiskFailsCommitAtOnce: on a full disk a Store's commit fails
// at the capability probe's first write, saying the store cannot be
// written and why, not that it ignores conditional writes.
func TestFullDiskFailsCommitAtOnce(t *testing.T) {
	b, _ := open(t)
	filestore.InjectErrno(b, "write", syscall.ENOSPC)
	_, err := objstore.New(b, nil).Put(context.Background(), "d", "k", 1, strings.NewReader("x"), 1)
	switch {
	case !errors.Is(err, driver.ErrNoSpace) || errors.Is(err, objstore.ErrUnsafeStore):
		t.Fatalf("err = %v, want ErrNoSpace and not ErrUnsafeStore", err)
	case !strings.Contains(err.Error(), "cannot write to "+b.Location()) || !strings.Contains(err.Error(), "no space left on device"):
		t.Fatalf("err = %v, want it to name the store and the full disk", err)
	}
}

// TestReadOnlyDirectory makes the directory read-only for real (which
// root ignores, so the test skips as root): writes fail with
// driver.ErrPermission, and reads still work.
func TestReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	b, dir := open(t)
	put(t, b, "k", "x", driver.PutOptions{})
	for _, d := range []string{filepath.Join(dir, ".fence-tmp"), dir} {
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(d, 0o755) })
	}
	_, err := b.Put(t.Context(), "k2", strings.NewReader("y"), 1, driver.PutOptions{})
	if !errors.Is(err, driver.ErrPermission) || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("Put in a read-only directory: %v, want ErrPermission naming it", err)
	}
	if got := drivertest.ReadString(t, b, "k"); got != "x" {
		t.Fatalf("read %q", got)
	}
}
