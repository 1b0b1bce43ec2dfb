package filestore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
)

// Backend is an driver.Backend over a local directory. It is safe for
// concurrent use, also by other processes that open the same directory.
type Backend struct {
	root    string // absolute
	locks   string // root/.fence-locks
	tmp     string // root/.fence-tmp
	stripes [256]chan struct{}
	// inject, set only by tests, fails the file operation op ("open"
	// of a temporary file, "write" of a body) on path with the error it
	// returns, as if the operating system had.
	inject func(op, path string) error
}

var _ driver.Backend = (*Backend)(nil)

// Open returns a backend that stores objects under dir, creating dir if it
// does not exist.
func Open(dir string) (*Backend, error) {
	if !supported {
		return nil, fmt.Errorf("filestore: open %s: no flock on %s, so writes cannot be made atomic across processes: %w", dir, runtime.GOOS, errors.ErrUnsupported)
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("filestore: open %s: %w", dir, err)
	}
	b := &Backend{root: root, locks: filepath.Join(root, lockDir), tmp: filepath.Join(root, tmpDir)}
	for _, d := range []string{b.locks, b.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("filestore: open %s: %w", dir, refused(err))
		}
	}
	for i := range b.stripes {
		b.stripes[i] = make(chan struct{}, 1)
	}
	b.sweepTemp(time.Now())
	return b, nil
}

// Dir returns the backend's directory, as an absolute path.
func (b *Backend) Dir() string { return b.root }

// Location names the directory: "file://" and its absolute path.
func (b *Backend) Location() string { return "file://" + filepath.ToSlash(b.root) }

// Close does nothing: the backend holds no open files between calls.
func (b *Backend) Close() error { return nil }

// notFound reports a missing object, keeping the OS error in the chain.
func notFound(op, key string, err error) error {
	return fmt.Errorf("filestore: %s %q: %w (%w)", op, key, driver.ErrNotFound, err)
}

// rootMissing returns a *driver.NoBucketError when the backend's
// directory itself does not exist (it was removed, or a file system
// is not mounted there any more), and nil otherwise.
func (b *Backend) rootMissing() error {
	_, err := os.Stat(b.root)
	if err == nil || !isNotExist(err) {
		return nil
	}
	return &driver.NoBucketError{Kind: "directory", Name: b.root, Err: err}
}

func isNotExist(err error) bool {
	// ENOTDIR cannot arise from our own layout, but treat a path through a
	// stray file as missing rather than as an I/O failure.
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// open opens the file of key and reads its header, leaving the file
// positioned at the start of the content.
func (b *Backend) open(op, key string) (*os.File, driver.ObjectInfo, error) {
	path, _, err := b.objectPath(key)
	if err != nil {
		return nil, driver.ObjectInfo{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		if isNotExist(err) {
			if nb := b.rootMissing(); nb != nil {
				return nil, driver.ObjectInfo{}, fmt.Errorf("filestore: %s %q: %w", op, key, nb)
			}
			return nil, driver.ObjectInfo{}, notFound(op, key, err)
		}
		return nil, driver.ObjectInfo{}, fmt.Errorf("filestore: %s %q: %w", op, key, refused(err))
	}
	info, err := fileInfo(f, path, key)
	if err != nil {
		f.Close()
		return nil, driver.ObjectInfo{}, fmt.Errorf("filestore: %s %q: %w", op, key, err)
	}
	return f, info, nil
}

// fileInfo reads the header of the object file f, at path, holding key.
func fileInfo(f *os.File, path, key string) (driver.ObjectInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return driver.ObjectInfo{}, err // *fs.PathError names the file
	}
	if !st.Mode().IsRegular() {
		return driver.ObjectInfo{}, fmt.Errorf("%s: bad object file: not a regular file", path)
	}
	etag, err := readHeader(f, path)
	if err != nil {
		return driver.ObjectInfo{}, err
	}
	return driver.ObjectInfo{Key: key, Size: st.Size() - int64(headerLen), ETag: etag, Modified: st.ModTime()}, nil
}

// content is the reader Get returns: the object file past its header.
// Hiding the *os.File keeps callers from seeking back into the header.
type content struct {
	f *os.File
	r io.Reader // a range of f, or nil for the rest of f
}

func (c content) Read(p []byte) (int, error) {
	if c.r != nil {
		return c.r.Read(p)
	}
	return c.f.Read(p)
}
func (c content) Close() error { return c.f.Close() }

// Get opens the object's content, or the part of it that opts asks for.
// Because a Put replaces the file by rename, the reader sees one whole
// version even if the object is overwritten or deleted while it is read.
// A conditional get costs one open and one small read when the object is
// unchanged: the ETag is in the file's header.
func (b *Backend) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, driver.ObjectInfo{}, fmt.Errorf("filestore: get %q: %w", key, err)
	}
	f, info, err := b.open("get", key)
	if err != nil {
		return nil, driver.ObjectInfo{}, err
	}
	if opts.IfNoneMatch != "" && info.ETag == opts.IfNoneMatch {
		f.Close()
		return nil, driver.ObjectInfo{}, fmt.Errorf("filestore: get %q: %w", key, driver.ErrNotModified)
	}
	off, n := opts.Window(info.Size)
	if off == 0 && n == info.Size {
		return content{f: f}, info, nil
	}
	if _, err := f.Seek(int64(headerLen)+off, io.SeekStart); err != nil {
		f.Close()
		return nil, driver.ObjectInfo{}, fmt.Errorf("filestore: get %q: %w", key, err)
	}
	return content{f: f, r: io.LimitReader(f, n)}, info, nil
}

// Head returns the object's metadata.
func (b *Backend) Head(ctx context.Context, key string) (driver.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return driver.ObjectInfo{}, fmt.Errorf("filestore: head %q: %w", key, err)
	}
	f, info, err := b.open("head", key)
	if err != nil {
		return driver.ObjectInfo{}, err
	}
	f.Close()
	return info, nil
}

// Put streams body to a temporary file, then, holding key's lock, checks
// opts' precondition and renames the file into place.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	path, dir, err := b.objectPath(key)
	if err != nil {
		return driver.ObjectInfo{}, err
	}
	fail := func(err error) (driver.ObjectInfo, error) {
		return driver.ObjectInfo{}, fmt.Errorf("filestore: put %q: %w", key, refused(err))
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if len(opts.Metadata) > 0 {
		return fail(fmt.Errorf("object metadata: %w", driver.ErrUnsupported))
	}
	f, info, err := b.writeTemp(ctx, body, size)
	if err != nil {
		return fail(err)
	}
	tmp := f.Name()
	info.Key = key
	renamed := false
	defer func() {
		// The flock on the temporary file, which tells sweepTemp that it
		// is in use, is held until it has been renamed or removed.
		if !renamed {
			os.Remove(tmp)
		}
		f.Close()
	}()

	unlock, err := b.lock(ctx, key)
	if err != nil {
		return fail(err)
	}
	defer unlock()
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if err := b.check(path, opts); err != nil {
		return fail(err)
	}
	renamed, err = b.rename(tmp, path, dir)
	if renamed && err != nil {
		// Applied, but perhaps not durable: not a refusal.
		return driver.ObjectInfo{}, fmt.Errorf("filestore: put %q: %w", key, err)
	}
	if err != nil {
		return fail(err)
	}
	return info, nil
}

// writeTemp writes a complete object file (header and body) to a new
// file in the temporary directory and syncs it. It returns the file, still
// open and flocked, and the object's metadata without its key; the caller
// closes the file once it has renamed or removed it.
func (b *Backend) writeTemp(ctx context.Context, body io.Reader, size int64) (_ *os.File, _ driver.ObjectInfo, err error) {
	f, err := b.createTemp()
	if err != nil {
		return nil, driver.ObjectInfo{}, err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
			f.Close()
		}
	}()
	if err := b.injected("write", f.Name()); err != nil {
		return nil, driver.ObjectInfo{}, err
	}
	if _, err := f.Write(make([]byte, headerLen)); err != nil {
		return nil, driver.ObjectInfo{}, err
	}
	r := io.Reader(ctxReader{ctx, body})
	if size >= 0 {
		// Read at most one byte too many: enough to tell that the body is
		// longer than size without reading all of it.
		r = io.LimitReader(r, size+1)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), r)
	if err != nil {
		return nil, driver.ObjectInfo{}, fmt.Errorf("reading body: %w", err)
	}
	if size >= 0 && n != size {
		if n > size {
			return nil, driver.ObjectInfo{}, fmt.Errorf("body is longer than size %d", size)
		}
		return nil, driver.ObjectInfo{}, fmt.Errorf("body has %d bytes, size says %d", n, size)
	}
	sum := h.Sum(nil)
	if _, err := f.WriteAt(formatHeader(sum), 0); err != nil {
		return nil, driver.ObjectInfo{}, err
	}
	if err := f.Sync(); err != nil {
		return nil, driver.ObjectInfo{}, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, driver.ObjectInfo{}, err
	}
	return f, driver.ObjectInfo{Size: n, ETag: hex.EncodeToString(sum), Modified: st.ModTime()}, nil
}

// createTemp creates a new file in the temporary directory, recreating
// the directory if someone removed it, and flocks it so that sweepTemp
// leaves it alone while this process lives.
func (b *Backend) createTemp() (*os.File, error) {
	var r [12]byte
	rand.Read(r[:])
	name := filepath.Join(b.tmp, tempPrefix+hex.EncodeToString(r[:]))
	if err := b.injected("open", name); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(b.tmp, 0o755); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	}
	if err != nil {
		return nil, err
	}
	ok, err := tryFlock(f)
	if err == nil && !ok {
		err = errors.New("another process holds its flock")
	}
	if err != nil {
		os.Remove(name)
		f.Close()
		return nil, fmt.Errorf("locking new temporary file %s: %w", name, err)
	}
	return f, nil
}

// injected returns the error b.inject gives op on path, or nil.
func (b *Backend) injected(op, path string) error {
	if b.inject == nil {
		return nil
	}
	return b.inject(op, path)
}

// ctxReader fails reads once ctx is done, so a cancelled Put stops
// streaming.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// check tests opts' precondition against the file at path. The caller
// holds the key's lock.
func (b *Backend) check(path string, opts driver.PutOptions) error {
	switch m := opts.Mode.(type) {
	case driver.Create:
		_, err := os.Lstat(path)
		switch {
		case err == nil:
			return fmt.Errorf("object exists (If-None-Match): %w", driver.ErrPreconditionFailed)
		case isNotExist(err):
			return nil
		default:
			return err
		}
	case driver.Update:
		f, err := os.Open(path)
		if isNotExist(err) {
			return fmt.Errorf("If-Match on a missing object: %w", driver.ErrPreconditionFailed)
		}
		if err != nil {
			return err
		}
		defer f.Close()
		etag, err := readHeader(f, path)
		if err != nil {
			return err
		}
		if etag != m.ETag {
			return fmt.Errorf("etag is %s, If-Match wants %s: %w", etag, m.ETag, driver.ErrPreconditionFailed)
		}
	}
	return nil
}

// maxRenameAttempts bounds the retries of a rename whose target
// directory a concurrent Delete keeps removing.
const maxRenameAttempts = 100

// rename moves the finished temporary file tmp to path, creating the
// directories on the way, and syncs every directory it changed. It
// reports whether the file was moved, even when a sync then failed.
func (b *Backend) rename(tmp, path, dir string) (moved bool, _ error) {
	var created []string
	for attempt := 0; ; attempt++ {
		err := os.Rename(tmp, path)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || attempt == maxRenameAttempts {
			return false, err
		}
		if _, err := os.Lstat(tmp); err != nil {
			return false, fmt.Errorf("temporary file vanished before rename: %w", err)
		}
		// A concurrent Delete may remove the directories again before
		// the rename; then the loop runs again.
		c, err := b.mkdirs(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		created = append(created, c...)
	}
	// Sync the object's directory and the parent of every directory we
	// created, so the new entries survive a crash.
	syncs := []string{dir}
	for _, d := range slices.Backward(created) {
		if p := filepath.Dir(d); !slices.Contains(syncs, p) {
			syncs = append(syncs, p)
		}
	}
	for _, d := range syncs {
		if err := syncDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			// The object is in place but may not survive a crash.
			return true, fmt.Errorf("syncing %s after rename: %w", d, err)
		}
	}
	return true, nil
}

// mkdirs creates dir and its missing parents below the root, and returns
// those it created, shallowest first.
func (b *Backend) mkdirs(dir string) ([]string, error) {
	rel, err := filepath.Rel(b.root, dir)
	if err != nil || rel == "." {
		return nil, err
	}
	var created []string
	cur := b.root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		err := os.Mkdir(cur, 0o755)
		switch {
		case err == nil:
			created = append(created, cur)
		case errors.Is(err, fs.ErrExist):
		default:
			return created, err
		}
	}
	return created, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Delete removes the object, then its directories that became empty.
func (b *Backend) Delete(ctx context.Context, key string) error {
	path, dir, err := b.objectPath(key)
	if err != nil {
		return err
	}
	unlock, err := b.lock(ctx, key)
	if err != nil {
		return fmt.Errorf("filestore: delete %q: %w", key, err)
	}
	defer unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("filestore: delete %q: %w", key, err)
	}
	if err := os.Remove(path); err != nil {
		if isNotExist(err) {
			return nil
		}
		return fmt.Errorf("filestore: delete %q: %w", key, refused(err))
	}
	if err := syncDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("filestore: delete %q: syncing %s: %w", key, dir, err)
	}
	// Best effort: Remove fails on a directory that is not empty, so this
	// stops at the first directory still in use.
	for d := dir; d != b.root && len(d) > len(b.root); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break
		}
	}
	return nil
}
