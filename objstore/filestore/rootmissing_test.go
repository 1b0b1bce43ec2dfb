package filestore

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// TestRootMissing: when the store's directory is removed after Open, Get,
// Head and List say that the directory does not exist (driver.ErrNoBucket),
// not that a key is missing; a missing key in an existing directory
// stays driver.ErrNotFound.
func TestRootMissing(t *testing.T) {
	dir := t.TempDir() + "/store"
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Get(t.Context(), "k", driver.GetOptions{}); !errors.Is(err, driver.ErrNotFound) || errors.Is(err, driver.ErrNoBucket) {
		t.Fatalf("Get of a missing key: %v, want ErrNotFound", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	want := `directory "` + b.Dir() + `" does not exist`
	check := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, driver.ErrNoBucket) || errors.Is(err, driver.ErrNotFound) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s in a removed directory: %v, want ErrNoBucket saying %s", op, err, want)
		}
	}
	_, _, err = b.Get(t.Context(), "k", driver.GetOptions{})
	check("Get", err)
	_, err = b.Head(t.Context(), "k")
	check("Head", err)
	check("List", b.List(t.Context(), "d/", func(driver.ObjectInfo) error { return nil }))
}
