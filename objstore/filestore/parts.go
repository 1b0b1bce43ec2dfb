package filestore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fencedstore/fence/objstore/driver"
)

var _ driver.PartUploader = (*Backend)(nil)

// partsPrefix starts the name of the directory, in the temporary
// directory, that holds the parts of one upload: "parts-" and the
// upload id. sweepTemp leaves such directories alone; AbortParts and
// CompleteParts remove them.
const partsPrefix = "parts-"

// partsDir returns the directory of upload id, or an error if id is not
// one this package makes.
func (b *Backend) partsDir(id string) (string, error) {
	if len(id) != 24 || !isLowerHex(id) {
		return "", fmt.Errorf("%q is not an upload id of this store: %w", id, driver.ErrNotFound)
	}
	return filepath.Join(b.tmp, partsPrefix+id), nil
}

// partName is the file name of part n whose ETag is etag: each upload of
// a part is a file of its own, and CompleteParts takes the one whose
// ETag it is given.
func partName(n int, etag string) string { return strconv.Itoa(n) + "-" + etag }

// CreateParts starts an upload of key in parts (driver.PartUploader): a
// directory in the store's temporary directory. Object metadata is not
// supported (driver.ErrUnsupported), as with Put.
func (b *Backend) CreateParts(ctx context.Context, key string, opts driver.PutOptions) (string, error) {
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("filestore: create parts %q: %w", key, refused(err))
	}
	if _, _, err := b.objectPath(key); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if len(opts.Metadata) > 0 {
		return fail(fmt.Errorf("object metadata: %w", driver.ErrUnsupported))
	}
	var r [12]byte
	rand.Read(r[:])
	id := hex.EncodeToString(r[:])
	dir, _ := b.partsDir(id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	return id, nil
}

// UploadPart streams body to a temporary file, syncs it and renames it
// into the upload's directory. A part uploaded again is a new file with
// a new ETag; CompleteParts uses the one it is given.
func (b *Backend) UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64) (_ string, err error) {
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("filestore: upload part %d of %q: %w", n, key, refused(err))
	}
	if err := driver.CheckPart(n, size); err != nil {
		return fail(err)
	}
	dir, err := b.partsDir(uploadID)
	if err != nil {
		return fail(err)
	}
	if _, err := os.Stat(dir); err != nil {
		return fail(fmt.Errorf("upload %s: %w (%w)", uploadID, driver.ErrNotFound, err))
	}
	f, err := b.createTemp()
	if err != nil {
		return fail(err)
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(f.Name())
		}
		f.Close()
	}()
	if err := b.injected("write", f.Name()); err != nil {
		return fail(err)
	}
	if _, err := io.Copy(f, ctxReader{ctx, driver.ExactReader(body, size)}); err != nil {
		return fail(fmt.Errorf("reading body: %w", err))
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	var r [16]byte
	rand.Read(r[:])
	etag := hex.EncodeToString(r[:])
	if err := os.Rename(f.Name(), filepath.Join(dir, partName(n, etag))); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fail(fmt.Errorf("upload %s was aborted or completed: %w (%w)", uploadID, driver.ErrNotFound, err))
		}
		return fail(err)
	}
	renamed = true
	return etag, nil
}

// CompleteParts writes the listed parts, concatenated, as key with Put
// (so the object appears whole, if mode's precondition holds), then
// removes the upload's directory. This backend has no minimum part
// size.
func (b *Backend) CompleteParts(ctx context.Context, key, uploadID string, parts []driver.CompletedPart, mode driver.PutMode) (driver.ObjectInfo, error) {
	fail := func(err error) (driver.ObjectInfo, error) {
		return driver.ObjectInfo{}, fmt.Errorf("filestore: complete parts %q: %w", key, refused(err))
	}
	if err := driver.CheckCompleted(parts); err != nil {
		return fail(err)
	}
	dir, err := b.partsDir(uploadID)
	if err != nil {
		return fail(err)
	}
	files := make([]*os.File, 0, len(parts))
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	readers := make([]io.Reader, 0, len(parts))
	var total int64
	for _, p := range parts {
		if len(p.ETag) != 32 || !isLowerHex(p.ETag) {
			return fail(fmt.Errorf("part %d: %q is not an ETag of this store: %w", p.N, p.ETag, driver.ErrPermanent))
		}
		f, err := os.Open(filepath.Join(dir, partName(p.N, p.ETag)))
		if isNotExist(err) {
			return fail(fmt.Errorf("part %d with ETag %q was not uploaded to upload %s: %w (%w)", p.N, p.ETag, uploadID, driver.ErrPermanent, err))
		}
		if err != nil {
			return fail(err)
		}
		files = append(files, f)
		st, err := f.Stat()
		if err != nil {
			return fail(err)
		}
		total += st.Size()
		readers = append(readers, f)
	}
	info, err := b.Put(ctx, key, io.MultiReader(readers...), total, driver.PutOptions{Mode: mode})
	if err != nil {
		return driver.ObjectInfo{}, err
	}
	for _, f := range files {
		f.Close()
	}
	files = nil
	// The object is in place: a failure to remove the parts only leaves
	// them on disk.
	os.RemoveAll(dir)
	return info, nil
}

// AbortParts removes the upload's directory and its parts.
func (b *Backend) AbortParts(ctx context.Context, key, uploadID string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("filestore: abort parts %q: %w", key, err)
	}
	dir, err := b.partsDir(uploadID)
	if err != nil {
		return nil // never an upload of this store: nothing to remove
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("filestore: abort parts %q: %w", key, refused(err))
	}
	return nil
}
