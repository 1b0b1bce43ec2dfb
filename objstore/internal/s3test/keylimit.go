package s3test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

// CheckKeyCountsPrefix checks that a backend under the prefix "tenant" is
// a driver.KeyChecker that counts its prefix towards S3's 1024 bytes.
func CheckKeyCountsPrefix(t *testing.T, newBackend func(t *testing.T, prefix string) driver.Backend) {
	t.Helper()
	kc, ok := newBackend(t, "tenant").(driver.KeyChecker)
	if !ok {
		t.Fatal("the backend is not a driver.KeyChecker")
	}
	if err := kc.CheckKey(strings.Repeat("k", 1024-len("tenant/"))); err != nil {
		t.Fatal(err)
	}
	if err := kc.CheckKey(strings.Repeat("k", 1024-len("tenant/")+1)); !errors.Is(err, rules.ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
}
