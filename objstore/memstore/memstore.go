package memstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
)

// Backend is an in-memory driver.Backend. The zero value is not usable;
// call New. It is safe for concurrent use.
type Backend struct {
	location string

	mu      sync.Mutex
	objects map[string]object
	ups     uploads // parts.go
}

var lastID atomic.Int64

type object struct {
	data     []byte // never modified after it is stored
	etag     string
	modified time.Time
	meta     map[string]string // never modified after it is stored
}

var _ driver.Backend = (*Backend)(nil)

// New returns an empty backend.
func New() *Backend {
	return &Backend{objects: make(map[string]object), location: fmt.Sprintf("mem://%d", lastID.Add(1))}
}

// Keys returns the keys of all stored objects in lexical order.
func (b *Backend) Keys() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	keys := make([]string, 0, len(b.objects))
	for k := range b.objects {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Corrupt overwrites key's content with data unconditionally. It is
// meant for tests of corrupt objects.
func (b *Backend) Corrupt(key string, data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.objects[key] = newObject(bytes.Clone(data))
}

func wrap(op, key string, err error) error {
	return fmt.Errorf("memstore: %s %q: %w", op, key, err)
}

func newObject(data []byte) object {
	sum := sha256.Sum256(data)
	return object{data: data, etag: hex.EncodeToString(sum[:]), modified: time.Now()}
}

func (o object) info(key string) driver.ObjectInfo {
	return driver.ObjectInfo{Key: key, Size: int64(len(o.data)), ETag: o.etag, Modified: o.modified, Metadata: maps.Clone(o.meta)}
}

// Capabilities reports that objects keep their metadata.
func (b *Backend) Capabilities() driver.Capabilities { return driver.Capabilities{Metadata: true} }

// Get returns a reader over the object's content, or the part of it that
// opts asks for.
func (b *Backend) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, driver.ObjectInfo{}, wrap("get", key, err)
	}
	b.mu.Lock()
	o, ok := b.objects[key]
	b.mu.Unlock()
	if !ok {
		return nil, driver.ObjectInfo{}, wrap("get", key, driver.ErrNotFound)
	}
	if opts.IfNoneMatch != "" && opts.IfNoneMatch == o.etag {
		return nil, driver.ObjectInfo{}, wrap("get", key, driver.ErrNotModified)
	}
	off, n := opts.Window(int64(len(o.data)))
	// o.data is never modified, and a bytes.Reader cannot write to it.
	return io.NopCloser(bytes.NewReader(o.data[off : off+n])), o.info(key), nil
}

// Head returns the object's metadata.
func (b *Backend) Head(ctx context.Context, key string) (driver.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return driver.ObjectInfo{}, wrap("head", key, err)
	}
	b.mu.Lock()
	o, ok := b.objects[key]
	b.mu.Unlock()
	if !ok {
		return driver.ObjectInfo{}, wrap("head", key, driver.ErrNotFound)
	}
	return o.info(key), nil
}

// Put reads body fully, then stores it if opts' precondition holds. If
// size is not -1 and body's length differs, nothing is stored.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return driver.ObjectInfo{}, wrap("put", key, fmt.Errorf("reading body: %w", err))
	}
	if size >= 0 && int64(len(data)) != size {
		return driver.ObjectInfo{}, wrap("put", key, fmt.Errorf("body has %d bytes, size says %d", len(data), size))
	}
	o := newObject(data)
	if len(opts.Metadata) > 0 {
		o.meta = maps.Clone(opts.Metadata)
	}

	b.mu.Lock()
	if err := ctx.Err(); err != nil {
		b.mu.Unlock()
		return driver.ObjectInfo{}, wrap("put", key, err)
	}
	cur, exists := b.objects[key]
	switch m := opts.Mode.(type) {
	case driver.Create:
		if exists {
			err = fmt.Errorf("object exists (If-None-Match): %w", driver.ErrPreconditionFailed)
		}
	case driver.Update:
		switch {
		case !exists:
			err = fmt.Errorf("If-Match on a missing object: %w", driver.ErrPreconditionFailed)
		case cur.etag != m.ETag:
			err = fmt.Errorf("etag is %s, If-Match wants %s: %w", cur.etag, m.ETag, driver.ErrPreconditionFailed)
		}
	}
	if err == nil {
		b.objects[key] = o
	}
	b.mu.Unlock()
	if err != nil {
		return driver.ObjectInfo{}, wrap("put", key, err)
	}
	return o.info(key), nil
}

// Delete removes the object. A missing object is not an error.
func (b *Backend) Delete(ctx context.Context, key string) error {
	b.mu.Lock()
	if err := ctx.Err(); err != nil {
		b.mu.Unlock()
		return wrap("delete", key, err)
	}
	delete(b.objects, key)
	b.mu.Unlock()
	return nil
}

// List calls fn, in lexical key order, for every object whose key starts
// with prefix when List is called. fn may call the backend.
func (b *Backend) List(ctx context.Context, prefix string, fn func(driver.ObjectInfo) error) error {
	if err := ctx.Err(); err != nil {
		return wrap("list", prefix, err)
	}
	b.mu.Lock()
	var infos []driver.ObjectInfo
	for k, o := range b.objects {
		if strings.HasPrefix(k, prefix) {
			infos = append(infos, o.info(k))
		}
	}
	b.mu.Unlock()
	slices.SortFunc(infos, func(x, y driver.ObjectInfo) int { return strings.Compare(x.Key, y.Key) })
	for _, info := range infos {
		if err := ctx.Err(); err != nil {
			return wrap("list", prefix, err)
		}
		if err := fn(info); err != nil {
			return err
		}
	}
	return nil
}

// Close does nothing; the backend stays usable.
func (b *Backend) Close() error { return nil }

// Location names this backend: "mem://" and an id unique in the process,
// so that two backends never share a probe verdict.
func (b *Backend) Location() string { return b.location }
