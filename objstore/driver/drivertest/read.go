package drivertest

import (
	"io"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// ReadString returns the bytes of key in b, and fails the test if they
// cannot be read: a helper for backend tests.
func ReadString(t testing.TB, b driver.Backend, key string) string {
	t.Helper()
	rc, _, err := b.Get(t.Context(), key, driver.GetOptions{})
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read %q: %v", key, err)
	}
	return string(data)
}
