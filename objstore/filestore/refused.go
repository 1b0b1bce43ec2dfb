package filestore

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/fencedstore/fence/objstore/driver"
)

// refused adds to err the driver class of the refusal it reports, when
// the operating system refused for a reason that a retry cannot change:
// ENOSPC and EDQUOT are driver.ErrNoSpace, EACCES and EPERM
// driver.ErrPermission, EROFS driver.ErrReadOnly. All three match
// driver.ErrPermanent, so the Store does not retry them. The OS error,
// which names the file and says "no space left on device", "permission
// denied" or "read-only file system", stays in the chain. Any other error
// is returned as it is.
//
// Only errors of requests that were not applied go through refused: a
// sync that fails after the rename that applied a Put does not.
func refused(err error) error {
	var class error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		class = driver.ErrNoSpace
	case errors.Is(err, syscall.EROFS):
		class = driver.ErrReadOnly
	case errors.Is(err, fs.ErrPermission):
		class = driver.ErrPermission
	default:
		return err
	}
	if errors.Is(err, class) {
		return err
	}
	return fmt.Errorf("%w: %w", class, err)
}
