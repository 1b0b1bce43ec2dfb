package memstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"sync"

	"github.com/fencedstore/fence/objstore/driver"
)

var _ driver.PartUploader = (*Backend)(nil)

// upload is one upload in parts: its key, options, and the parts
// uploaded so far, each never modified once stored.
type upload struct {
	key   string
	opts  driver.PutOptions
	parts map[int]object
}

// uploads are the backend's uploads in parts, by id. They are kept
// beside the objects, under their own lock, so that no List sees them.
type uploads struct {
	mu sync.Mutex
	m  map[string]*upload
}

// CreateParts starts an upload of key in parts (driver.PartUploader).
func (b *Backend) CreateParts(ctx context.Context, key string, opts driver.PutOptions) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", wrap("create parts", key, err)
	}
	var r [12]byte
	rand.Read(r[:])
	id := hex.EncodeToString(r[:])
	b.ups.mu.Lock()
	defer b.ups.mu.Unlock()
	if b.ups.m == nil {
		b.ups.m = make(map[string]*upload)
	}
	b.ups.m[id] = &upload{key: key, opts: driver.PutOptions{ContentType: opts.ContentType, Metadata: maps.Clone(opts.Metadata)}, parts: make(map[int]object)}
	return id, nil
}

// find returns the upload id of key, or an error matching
// driver.ErrNotFound. The caller holds b.ups.mu.
func (b *Backend) find(key, id string) (*upload, error) {
	u, ok := b.ups.m[id]
	if !ok || u.key != key {
		return nil, fmt.Errorf("no upload %q of this key: %w", id, driver.ErrNotFound)
	}
	return u, nil
}

// UploadPart reads body whole, then stores it as part n, replacing an
// earlier upload of part n.
func (b *Backend) UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64) (string, error) {
	if err := driver.CheckPart(n, size); err != nil {
		return "", wrap("upload part", key, err)
	}
	data, err := io.ReadAll(driver.ExactReader(body, size))
	if err != nil {
		return "", wrap("upload part", key, fmt.Errorf("reading part %d: %w", n, err))
	}
	o := newObject(data)
	b.ups.mu.Lock()
	defer b.ups.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return "", wrap("upload part", key, err)
	}
	u, err := b.find(key, uploadID)
	if err != nil {
		return "", wrap("upload part", key, err)
	}
	u.parts[n] = o
	return o.etag, nil
}

// CompleteParts stores the listed parts, concatenated, as key if mode's
// precondition holds, and ends the upload. This backend has no minimum
// part size.
func (b *Backend) CompleteParts(ctx context.Context, key, uploadID string, parts []driver.CompletedPart, mode driver.PutMode) (driver.ObjectInfo, error) {
	if err := driver.CheckCompleted(parts); err != nil {
		return driver.ObjectInfo{}, wrap("complete parts", key, err)
	}
	b.ups.mu.Lock()
	u, err := b.find(key, uploadID)
	if err != nil {
		b.ups.mu.Unlock()
		return driver.ObjectInfo{}, wrap("complete parts", key, err)
	}
	var buf bytes.Buffer
	for _, p := range parts {
		o, ok := u.parts[p.N]
		if !ok || o.etag != p.ETag {
			b.ups.mu.Unlock()
			return driver.ObjectInfo{}, wrap("complete parts", key, fmt.Errorf("part %d with ETag %q was not uploaded: %w", p.N, p.ETag, driver.ErrPermanent))
		}
		buf.Write(o.data)
	}
	opts := u.opts
	b.ups.mu.Unlock()

	opts.Mode = mode
	info, err := b.Put(ctx, key, &buf, int64(buf.Len()), opts)
	if err != nil {
		return driver.ObjectInfo{}, err
	}
	b.ups.mu.Lock()
	delete(b.ups.m, uploadID)
	b.ups.mu.Unlock()
	return info, nil
}

// AbortParts discards the upload and its parts.
func (b *Backend) AbortParts(ctx context.Context, key, uploadID string) error {
	if err := ctx.Err(); err != nil {
		return wrap("abort parts", key, err)
	}
	b.ups.mu.Lock()
	defer b.ups.mu.Unlock()
	if u, ok := b.ups.m[uploadID]; ok && u.key == key {
		delete(b.ups.m, uploadID)
	}
	return nil
}

// Uploads returns the keys of the uploads in parts that were neither
// completed nor aborted, for tests.
func (b *Backend) Uploads() []string {
	b.ups.mu.Lock()
	defer b.ups.mu.Unlock()
	var keys []string
	for _, u := range b.ups.m {
		keys = append(keys, u.key)
	}
	return keys
}
