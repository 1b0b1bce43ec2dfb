package filestore

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// tempPrefix starts the name of every temporary file a Put writes.
const tempPrefix = "put-"

// sweepAge is how old a temporary file must be before sweepTemp looks at
// it. A Put flocks its temporary file right after creating it; the age
// keeps the sweep away from that instant.
const sweepAge = time.Minute

// sweepTemp removes the temporary files that writers which died mid-Put
// (killed, crashed, or the machine lost power) left in .fence-tmp. A Put
// holds an exclusive flock on its temporary file from creation until the
// file is renamed into place or removed, and the kernel drops a flock
// when its process dies, so a file whose flock can be taken belongs to no
// live writer. Files younger than sweepAge, and names this package never
// writes, are left alone.
//
// Open calls it. It reports how many files it removed; errors only leave
// files behind, so they are not reported.
func (b *Backend) sweepTemp(now time.Time) (removed int) {
	entries, err := os.ReadDir(b.tmp)
	if err != nil {
		return 0
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < sweepAge {
			continue
		}
		if sweepOne(filepath.Join(b.tmp, e.Name())) {
			removed++
		}
	}
	return removed
}

// sweepOne removes the temporary file at path if no live process holds
// its flock.
func sweepOne(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if ok, err := tryFlock(f); err != nil || !ok {
		return false
	}
	// A Put that finished while we waited has renamed the file away:
	// removing by name then fails harmlessly, because names are random.
	return os.Remove(path) == nil
}
