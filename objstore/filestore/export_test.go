package filestore

import (
	"io/fs"
	"os"
	"strings"
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

// Uploads returns the ids of b's uploads in parts whose directories
// exist.
func Uploads(b *Backend) []string {
	entries, _ := os.ReadDir(b.tmp)
	var ids []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), partsPrefix) {
			ids = append(ids, strings.TrimPrefix(e.Name(), partsPrefix))
		}
	}
	return ids
}
