// Package probecache keeps the verdicts of fence's capability probe
// (driver.ProbeWith) in files, so that the processes one user runs on
// one machine probe a store once per lifetime instead of once each. A
// fence CLI run from cron is a new process every time, and the probe is
// about twenty requests to the store; with a cached verdict, a whole
// `fence put` process measured 1.18x a plain PutObject process, against
// 3.40x without (docs/benchmarks.md).
//
// A verdict is a file named by a hash of its key, in a directory only
// its user may write, holding the key and when the probe passed. It
// holds while that time is within the lifetime by the machine's clock:
// a verdict from the future (the clock went back) does not hold. What a
// cached verdict can miss is in docs/design.md ("The probe's verdict
// across processes").
package probecache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// DefaultLifetime is how long a verdict holds unless the cache says
// otherwise: a day, so that a daily job probes once a day at most.
const DefaultLifetime = 24 * time.Hour

// Dir is a driver.VerdictCache in the files of one directory.
type Dir struct {
	path     string
	lifetime time.Duration
	now      func() time.Time
}

// Open returns the cache in directory path (created, mode 0700, when it
// does not exist), whose verdicts hold for lifetime. It refuses a
// directory that others may write to, since a verdict there could be
// forged by them. now is the clock (nil: time.Now).
func Open(path string, lifetime time.Duration, now func() time.Time) (*Dir, error) {
	if lifetime <= 0 {
		return nil, fmt.Errorf("probecache: lifetime %v: want a positive duration", lifetime)
	}
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, fmt.Errorf("probecache: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("probecache: %w", err)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("probecache: %s is writable by others (mode %v): a verdict there could be forged; make it 0700", path, fi.Mode().Perm())
	}
	return &Dir{path: path, lifetime: lifetime, now: now}, nil
}

// verdict is a verdict file's content.
type verdict struct {
	Key    string    `json:"key"`
	Passed time.Time `json:"passed"`
}

// file returns the path of key's verdict.
func (d *Dir) file(key string) string {
	h := sha256.Sum256([]byte(key))
	return filepath.Join(d.path, hex.EncodeToString(h[:16])+".json")
}

// Passed reports whether key's verdict exists, is its own (not another
// key's), and passed within the lifetime, not after now. A file that
// others may write to does not count.
func (d *Dir) Passed(key string) bool {
	v, ok := d.read(key)
	if !ok {
		return false
	}
	age := d.now().Sub(v.Passed)
	return age >= 0 && age < d.lifetime
}

func (d *Dir) read(key string) (verdict, bool) {
	f, err := os.Open(d.file(key))
	if err != nil {
		return verdict{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 {
		return verdict{}, false
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return verdict{}, false
	}
	var v verdict
	if json.Unmarshal(b, &v) != nil || v.Key != key {
		return verdict{}, false
	}
	return v, true
}

// Pass records that a probe of key passed now. The file is written
// whole and then renamed into place, so that a reader never sees half
// of one.
func (d *Dir) Pass(key string) error {
	b, err := json.Marshal(verdict{Key: key, Passed: d.now().UTC()})
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(d.path, ".verdict-*")
	if err != nil {
		return fmt.Errorf("probecache: %w", err)
	}
	tmp := f.Name()
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, d.file(key))
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("probecache: %w", werr)
	}
	return nil
}

// Forget drops key's verdict.
func (d *Dir) Forget(key string) error {
	err := os.Remove(d.file(key))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("probecache: %w", err)
	}
	return nil
}
