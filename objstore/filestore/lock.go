package filestore

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// lock takes key's stripe lock: first the in-process semaphore of the
// stripe, which honours ctx, then an exclusive flock on the stripe's lock
// file, which excludes other processes. The flock wait does not honour
// ctx, but it is held only for a precondition check and a rename.
func (b *Backend) lock(ctx context.Context, key string) (unlock func(), err error) {
	sum := sha256.Sum256([]byte(key))
	i := sum[0]
	select {
	case b.stripes[i] <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release := func() { <-b.stripes[i] }

	name := filepath.Join(b.locks, fmt.Sprintf("%02x", i))
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(b.locks, 0o755); err == nil {
			f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
		}
	}
	if err != nil {
		release()
		return nil, fmt.Errorf("opening lock file: %w", err)
	}
	if err := flock(f); err != nil {
		f.Close()
		release()
		return nil, fmt.Errorf("locking %s: %w", name, err)
	}
	return func() {
		funlock(f)
		f.Close()
		release()
	}, nil
}
