//go:build !unix || solaris || aix

package filestore

import (
	"errors"
	"os"
)

// supported is false where syscall.Flock does not exist: Open refuses to
// run rather than write without cross-process locking.
const supported = false

func flock(*os.File) error   { return errors.ErrUnsupported }
func funlock(*os.File) error { return errors.ErrUnsupported }

func tryFlock(*os.File) (bool, error) { return false, errors.ErrUnsupported }
