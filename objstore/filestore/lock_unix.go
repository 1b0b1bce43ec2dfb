//go:build unix && !solaris && !aix

package filestore

import (
	"errors"
	"os"
	"syscall"
)

const supported = true

// flock takes an exclusive lock on f, waiting as long as it takes.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func funlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
