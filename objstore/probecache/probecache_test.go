package probecache_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/objstore/probecache"
)

func open(t *testing.T, dir string, lifetime time.Duration, now *time.Time) *probecache.Dir {
	t.Helper()
	d, err := probecache.Open(dir, lifetime, func() time.Time { return *now })
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestVerdictHoldsForItsLifetime(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	dir := filepath.Join(t.TempDir(), "fence", "probe")
	d := open(t, dir, time.Hour, &now)
	if d.Passed("k") {
		t.Fatal("a verdict that was never recorded holds")
	}
	if err := d.Pass("k"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("cache directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
	// Another process, the same directory.
	other := open(t, dir, time.Hour, &now)
	now = now.Add(59 * time.Minute)
	if !other.Passed("k") {
		t.Fatal("a verdict within its lifetime does not hold in another process")
	}
	if other.Passed("k2") {
		t.Fatal("another key's verdict holds")
	}
	now = now.Add(time.Minute)
	if other.Passed("k") {
		t.Fatal("a verdict past its lifetime holds")
	}
	// A verdict from the future (the clock went back) does not hold.
	now = now.Add(-2 * time.Hour)
	if other.Passed("k") {
		t.Fatal("a verdict recorded after now holds")
	}
	now = now.Add(2 * time.Hour)
	if err := other.Pass("k"); err != nil {
		t.Fatal(err)
	}
	if err := d.Forget("k"); err != nil || other.Passed("k") {
		t.Fatalf("Forget: %v; the verdict still holds: %v", err, other.Passed("k"))
	}
	if err := d.Forget("k"); err != nil {
		t.Fatalf("Forget of a missing verdict: %v", err)
	}
}

// A verdict file that others could have written, that is damaged, or
// that names another key does not hold; a directory others may write to
// is refused.
func TestUntrustedVerdicts(t *testing.T) {
	now := time.Now()
	dir := t.TempDir()
	d := open(t, dir, time.Hour, &now)
	if err := d.Pass("k"); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("verdict files: %v", files)
	}
	f := files[0]
	good, _ := os.ReadFile(f)

	if err := os.Chmod(f, 0o666); err != nil {
		t.Fatal(err)
	}
	if d.Passed("k") {
		t.Error("a world-writable verdict holds")
	}
	_ = os.Chmod(f, 0o600)
	if !d.Passed("k") {
		t.Fatal("the verdict does not hold once its mode is 0600")
	}
	for name, body := range map[string]string{
		"damaged":   string(good[:len(good)/2]),
		"other key": strings.Replace(string(good), `"key":"k"`, `"key":"x"`, 1),
		"empty":     "",
	} {
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if d.Passed("k") {
			t.Errorf("%s verdict file holds", name)
		}
	}

	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(open, 0o777)
	if _, err := probecache.Open(open, time.Hour, nil); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Fatalf("Open of a world-writable directory: %v", err)
	}
	if _, err := probecache.Open(t.TempDir(), 0, nil); err == nil {
		t.Fatal("Open with no lifetime succeeded")
	}
}
