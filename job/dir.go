package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/fencedstore/fence/objstore"
)

// Publish names a directory to commit once the command has exited 0.
type Publish struct {
	// Dir is the directory. Every regular file under it (symbolic links
	// to regular files included) becomes one key.
	Dir string
	// Prefix, when set, is put before each file's slash-separated path
	// below Dir, with a "/": file a/b.csv becomes PREFIX/a/b.csv.
	Prefix string
	// Delete also deletes, in the same commit, the domain's keys under
	// Prefix (every key, without a prefix) that are not files in Dir.
	Delete bool
}

// Changes returns the changes that make the domain's keys under p.Prefix
// what p.Dir holds, as one commit, and a function that closes the files
// still open. Files are opened only when their upload starts and closed
// at their end, so a directory of many files holds few descriptors. A
// file that is neither regular nor a link to one, or whose path is not a
// valid key, is an error naming it, before anything is written.
func (p Publish) Changes(ctx context.Context, store *objstore.Store, domain string) ([]objstore.Change, func(), error) {
	var (
		changes []objstore.Change
		files   []*lazyFile
		keys    = map[string]bool{}
	)
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	err := filepath.WalkDir(p.Dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		fi, err := os.Stat(name) // follows a link
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("job: publish %s: not a regular file (%s)", name, fi.Mode().Type())
		}
		rel, err := filepath.Rel(p.Dir, name)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if p.Prefix != "" {
			key = path.Join(p.Prefix, key)
		}
		if err := objstore.ValidateKey(key); err != nil {
			return fmt.Errorf("job: publish %s: %w", name, err)
		}
		f := &lazyFile{name: name}
		files = append(files, f)
		keys[key] = true
		changes = append(changes, objstore.PutReader(key, f, fi.Size()))
		return nil
	})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	if p.Delete {
		var opts objstore.ListOptions
		if p.Prefix != "" {
			opts.Prefix = p.Prefix + "/"
		}
		live, err := store.List(ctx, domain, &opts)
		if err != nil && !errors.Is(err, objstore.ErrNotFound) {
			closeAll()
			return nil, nil, fmt.Errorf("job: publish: list the keys to delete: %w", err)
		}
		for _, v := range live {
			if !keys[v.Key] {
				changes = append(changes, objstore.DeleteKey(v.Key))
			}
		}
	}
	return changes, closeAll, nil
}

// lazyFile is a file opened at its first read or seek, and closed once it
// has been read to its end (a seek opens it again, for a retry).
type lazyFile struct {
	name string
	f    *os.File
	eof  bool
}

func (l *lazyFile) open() error {
	if l.f != nil {
		return nil
	}
	f, err := os.Open(l.name)
	if err != nil {
		return err
	}
	l.f = f
	return nil
}

func (l *lazyFile) Read(p []byte) (int, error) {
	if l.eof {
		return 0, io.EOF
	}
	if err := l.open(); err != nil {
		return 0, err
	}
	n, err := l.f.Read(p)
	if err == io.EOF {
		l.eof = true
		l.Close()
	}
	return n, err
}

func (l *lazyFile) Seek(offset int64, whence int) (int64, error) {
	if l.f == nil && !l.eof && offset == 0 && whence == io.SeekCurrent {
		return 0, nil // not opened yet: at the start
	}
	if err := l.open(); err != nil {
		return 0, err
	}
	l.eof = false
	return l.f.Seek(offset, whence)
}

// Close closes the file if it is open.
func (l *lazyFile) Close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
