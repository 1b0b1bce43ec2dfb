package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// writeFileAtomic copies r to a temporary file beside name and renames it
// to name only when r was read to its end without error (for a store
// reader, after size and checksums matched), so that a failed check or an
// interrupted copy leaves no partial file and no temporary one.
//
// A new file gets mode 0666 less the umask, as cp or a shell redirection
// would create it; an existing regular file keeps its permission bits.
func writeFileAtomic(name string, r io.Reader) error {
	var keep fs.FileMode
	existing := false
	if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
		keep, existing = fi.Mode().Perm(), true
	}
	tmp, err := createTemp(name)
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, r)
	if err == nil && existing {
		err = tmp.Chmod(keep)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// createTemp creates a new file ".NAME.fence-RANDOM" beside name with mode
// 0666 less the umask (os.CreateTemp would use 0600).
func createTemp(name string) (*os.File, error) {
	for range 10 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		p := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".fence-"+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, &fs.PathError{Op: "create temporary file beside", Path: name, Err: fs.ErrExist}
}
