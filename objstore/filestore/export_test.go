package filestore

import (
	"io/fs"
	"syscall"
)

// InjectErrno makes every file operation op of b ("open" of a temporary
// file, "write" of a body) fail with errno, as the operating system
// reports it: an *fs.PathError naming the file.
func InjectErrno(b *Backend, op string, errno syscall.Errno) {
	b.inject = func(o, path string) error {
		if o != op {
			return nil
		}
		return &fs.PathError{Op: op, Path: path, Err: errno}
	}
}
