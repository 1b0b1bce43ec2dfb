package filestore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fencedstore/fence/objstore/driver"
)

// List calls fn for every object whose key starts with prefix, in lexical
// key order. It reads only the directories that can hold such keys, one
// directory at a time. Objects written or deleted during the walk may or
// may not be reported.
func (b *Backend) List(ctx context.Context, prefix string, fn func(driver.ObjectInfo) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("filestore: list %q: %w", prefix, err)
	}
	// Every segment of prefix before its last "/" is a whole key segment:
	// a directory to descend into. The rest matches the start of a name.
	segs := strings.Split(prefix, "/")
	whole, partial := segs[:len(segs)-1], segs[len(segs)-1]
	dir := b.root
	for _, s := range whole {
		e := escape(s)
		if len(e) > MaxSegmentLen {
			return nil // no key can have this segment
		}
		dir = filepath.Join(dir, dirPrefix+e)
	}
	base := ""
	if len(whole) > 0 {
		base = strings.Join(whole, "/") + "/"
	}
	w := walker{b: b, ctx: ctx, prefix: prefix, fn: fn}
	return w.walk(dir, base, partial)
}

type walker struct {
	b      *Backend
	ctx    context.Context
	prefix string
	fn     func(driver.ObjectInfo) error
}

// entry is a directory entry that holds keys under the listed prefix.
type entry struct {
	key  string // the object's key, or the key segments the directory stands for
	path string
	dir  bool
}

// order is the entry's position in key order. A directory stands for keys
// that all start with its key and a "/", and so sort together there.
func (e entry) order() string {
	if e.dir {
		return e.key + "/"
	}
	return e.key
}

// walk reports, in key order, the objects under dir whose keys are base
// followed by a name that starts with partial.
func (w *walker) walk(dir, base, partial string) error {
	des, err := os.ReadDir(dir)
	if err != nil {
		if isNotExist(err) {
			if nb := w.b.rootMissing(); nb != nil {
				return fmt.Errorf("filestore: list %q: %w", w.prefix, nb)
			}
			return nil
		}
		return fmt.Errorf("filestore: list %q: %w", w.prefix, refused(err))
	}
	var entries []entry
	for _, de := range des {
		name := de.Name()
		var isDir bool
		switch {
		case strings.HasPrefix(name, dirPrefix):
			isDir = true
		case strings.HasPrefix(name, filePrefix):
		default:
			continue // our hidden directories, or a stranger's file
		}
		path := filepath.Join(dir, name)
		seg, ok := unescape(name[len(dirPrefix):])
		if !ok {
			return fmt.Errorf("filestore: list %q: %s: not a name filestore writes", w.prefix, path)
		}
		if !strings.HasPrefix(seg, partial) {
			continue
		}
		if de.IsDir() != isDir {
			return fmt.Errorf("filestore: list %q: %s: unexpected %s", w.prefix, path, de.Type())
		}
		entries = append(entries, entry{key: base + seg, path: path, dir: isDir})
	}
	slices.SortFunc(entries, func(x, y entry) int { return strings.Compare(x.order(), y.order()) })
	for _, e := range entries {
		if err := w.ctx.Err(); err != nil {
			return fmt.Errorf("filestore: list %q: %w", w.prefix, err)
		}
		if e.dir {
			if err := w.walk(e.path, e.key+"/", ""); err != nil {
				return err
			}
			continue
		}
		info, err := statObject(e.path, e.key)
		if err != nil {
			if isNotExist(err) {
				continue // deleted since ReadDir
			}
			return fmt.Errorf("filestore: list %q: %w", w.prefix, err)
		}
		if err := w.fn(info); err != nil {
			return err
		}
	}
	return nil
}

func statObject(path, key string) (driver.ObjectInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return driver.ObjectInfo{}, err
	}
	defer f.Close()
	return fileInfo(f, path, key)
}
