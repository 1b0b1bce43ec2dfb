package memstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
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
	hook  atomic.Pointer[Hook]
	calls sync.Map // Op -> *atomic.Int64

	location string

	mu      sync.Mutex
	objects map[string]object
}

var lastID atomic.Int64

type object struct {
	data     []byte // never modified after it is stored
	etag     string
	modified time.Time
}

var _ driver.Backend = (*Backend)(nil)

// New returns an empty backend.
func New() *Backend {
	return &Backend{objects: make(map[string]object), location: fmt.Sprintf("mem://%d", lastID.Add(1))}
}

// SetHook installs h, which then decides the Fault of every call. A nil h
// removes the hook. Calls already past their hook are not affected.
func (b *Backend) SetHook(h Hook) {
	if h == nil {
		b.hook.Store(nil)
		return
	}
	b.hook.Store(&h)
}

// Calls returns how many calls of op have been made, including calls that
// a fault failed.
func (b *Backend) Calls(op Op) int64 { return b.counter(op).Load() }

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

// Corrupt overwrites key's content with data unconditionally, bypassing
// hooks and call counts. It is meant for tests of corrupt objects.
func (b *Backend) Corrupt(key string, data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.objects[key] = newObject(bytes.Clone(data))
}

func (b *Backend) counter(op Op) *atomic.Int64 {
	if c, ok := b.calls.Load(op); ok {
		return c.(*atomic.Int64)
	}
	c, _ := b.calls.LoadOrStore(op, new(atomic.Int64))
	return c.(*atomic.Int64)
}

// begin counts the call and asks the hook for its fault.
func (b *Backend) begin(ctx context.Context, c Call) Fault {
	b.counter(c.Op).Add(1)
	if h := b.hook.Load(); h != nil {
		return (*h)(ctx, c)
	}
	return Fault{}
}

func wrap(op Op, key string, err error) error {
	return fmt.Errorf("memstore: %s %q: %w", op, key, err)
}

func newObject(data []byte) object {
	sum := sha256.Sum256(data)
	return object{data: data, etag: hex.EncodeToString(sum[:]), modified: time.Now()}
}

func (o object) info(key string) driver.ObjectInfo {
	return driver.ObjectInfo{Key: key, Size: int64(len(o.data)), ETag: o.etag, Modified: o.modified}
}

// Get returns a reader over the object's content, or the part of it that
// opts asks for.
func (b *Backend) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	f := b.begin(ctx, Call{Op: OpGet, Key: key})
	if err := f.before(ctx); err != nil {
		return nil, driver.ObjectInfo{}, wrap(OpGet, key, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, driver.ObjectInfo{}, wrap(OpGet, key, err)
	}
	b.mu.Lock()
	o, ok := b.objects[key]
	b.mu.Unlock()
	if err := f.after(); err != nil {
		return nil, driver.ObjectInfo{}, wrap(OpGet, key, err)
	}
	if !ok {
		return nil, driver.ObjectInfo{}, wrap(OpGet, key, driver.ErrNotFound)
	}
	if opts.IfNoneMatch != "" && opts.IfNoneMatch == o.etag {
		return nil, driver.ObjectInfo{}, wrap(OpGet, key, driver.ErrNotModified)
	}
	off, n := opts.Window(int64(len(o.data)))
	// o.data is never modified, and a bytes.Reader cannot write to it.
	return io.NopCloser(bytes.NewReader(o.data[off : off+n])), o.info(key), nil
}

// Head returns the object's metadata.
func (b *Backend) Head(ctx context.Context, key string) (driver.ObjectInfo, error) {
	f := b.begin(ctx, Call{Op: OpHead, Key: key})
	if err := f.before(ctx); err != nil {
		return driver.ObjectInfo{}, wrap(OpHead, key, err)
	}
	if err := ctx.Err(); err != nil {
		return driver.ObjectInfo{}, wrap(OpHead, key, err)
	}
	b.mu.Lock()
	o, ok := b.objects[key]
	b.mu.Unlock()
	if err := f.after(); err != nil {
		return driver.ObjectInfo{}, wrap(OpHead, key, err)
	}
	if !ok {
		return driver.ObjectInfo{}, wrap(OpHead, key, driver.ErrNotFound)
	}
	return o.info(key), nil
}

// Put reads body fully, then stores it if opts' precondition holds. If
// size is not -1 and body's length differs, nothing is stored.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	f := b.begin(ctx, Call{Op: OpPut, Key: key, Opts: opts})
	if err := f.before(ctx); err != nil {
		return driver.ObjectInfo{}, wrap(OpPut, key, err)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return driver.ObjectInfo{}, wrap(OpPut, key, fmt.Errorf("reading body: %w", err))
	}
	if size >= 0 && int64(len(data)) != size {
		return driver.ObjectInfo{}, wrap(OpPut, key, fmt.Errorf("body has %d bytes, size says %d", len(data), size))
	}
	o := newObject(data)

	b.mu.Lock()
	if err := ctx.Err(); err != nil {
		b.mu.Unlock()
		return driver.ObjectInfo{}, wrap(OpPut, key, err)
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
		return driver.ObjectInfo{}, wrap(OpPut, key, err)
	}
	if err := f.after(); err != nil {
		return driver.ObjectInfo{}, wrap(OpPut, key, err)
	}
	return o.info(key), nil
}

// Delete removes the object. A missing object is not an error.
func (b *Backend) Delete(ctx context.Context, key string) error {
	f := b.begin(ctx, Call{Op: OpDelete, Key: key})
	if err := f.before(ctx); err != nil {
		return wrap(OpDelete, key, err)
	}
	b.mu.Lock()
	if err := ctx.Err(); err != nil {
		b.mu.Unlock()
		return wrap(OpDelete, key, err)
	}
	delete(b.objects, key)
	b.mu.Unlock()
	if err := f.after(); err != nil {
		return wrap(OpDelete, key, err)
	}
	return nil
}

// List calls fn, in lexical key order, for every object whose key starts
// with prefix when List is called. fn may call the backend.
func (b *Backend) List(ctx context.Context, prefix string, fn func(driver.ObjectInfo) error) error {
	f := b.begin(ctx, Call{Op: OpList, Key: prefix})
	if err := f.before(ctx); err != nil {
		return wrap(OpList, prefix, err)
	}
	if err := ctx.Err(); err != nil {
		return wrap(OpList, prefix, err)
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
			return wrap(OpList, prefix, err)
		}
		if err := fn(info); err != nil {
			return err
		}
	}
	if err := f.after(); err != nil {
		return wrap(OpList, prefix, err)
	}
	return nil
}

// Close does nothing; the backend stays usable.
func (b *Backend) Close() error { return nil }

// Location names this backend: "mem://" and an id unique in the process,
// so that two backends never share a probe verdict.
func (b *Backend) Location() string { return b.location }
