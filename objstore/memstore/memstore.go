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

	"github.com/fencedstore/fence/objstore"
)

// Backend is an in-memory objstore.Backend. The zero value is not usable;
// call New. It is safe for concurrent use.
type Backend struct {
	hook  atomic.Pointer[Hook]
	calls sync.Map // Op -> *atomic.Int64

	mu      sync.Mutex
	objects map[string]object
}

type object struct {
	data     []byte // never modified after it is stored
	etag     string
	modified time.Time
}

var _ objstore.Backend = (*Backend)(nil)

// New returns an empty backend.
func New() *Backend {
	return &Backend{objects: make(map[string]object)}
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

func (o object) info(key string) objstore.ObjectInfo {
	return objstore.ObjectInfo{Key: key, Size: int64(len(o.data)), ETag: o.etag, Modified: o.modified}
}

// Get returns a reader over a copy of the object's content.
func (b *Backend) Get(ctx context.Context, key string) (io.ReadCloser, objstore.ObjectInfo, error) {
	return b.get(ctx, key, "")
}

// GetIfNoneMatch is Get, except that it fails with objstore.ErrNotModified
// when the object's ETag equals etag. It counts and hooks as OpGet.
func (b *Backend) GetIfNoneMatch(ctx context.Context, key, etag string) (io.ReadCloser, objstore.ObjectInfo, error) {
	return b.get(ctx, key, etag)
}

func (b *Backend) get(ctx context.Context, key, ifNoneMatch string) (io.ReadCloser, objstore.ObjectInfo, error) {
	f := b.begin(ctx, Call{Op: OpGet, Key: key})
	if err := f.before(ctx); err != nil {
		return nil, objstore.ObjectInfo{}, wrap(OpGet, key, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, objstore.ObjectInfo{}, wrap(OpGet, key, err)
	}
	b.mu.Lock()
	o, ok := b.objects[key]
	b.mu.Unlock()
	if err := f.after(); err != nil {
		return nil, objstore.ObjectInfo{}, wrap(OpGet, key, err)
	}
	if !ok {
		return nil, objstore.ObjectInfo{}, wrap(OpGet, key, objstore.ErrNotFound)
	}
	if ifNoneMatch != "" && ifNoneMatch == o.etag {
		return nil, objstore.ObjectInfo{}, wrap(OpGet, key, objstore.ErrNotModified)
	}
	// o.data is never modified, and a bytes.Reader cannot write to it.
	return io.NopCloser(bytes.NewReader(o.data)), o.info(key), nil
}

// Head returns the object's metadata.
func (b *Backend) Head(ctx context.Context, key string) (objstore.ObjectInfo, error) {
	f := b.begin(ctx, Call{Op: OpHead, Key: key})
	if err := f.before(ctx); err != nil {
		return objstore.ObjectInfo{}, wrap(OpHead, key, err)
	}
	if err := ctx.Err(); err != nil {
		return objstore.ObjectInfo{}, wrap(OpHead, key, err)
	}
	b.mu.Lock()
	o, ok := b.objects[key]
	b.mu.Unlock()
	if err := f.after(); err != nil {
		return objstore.ObjectInfo{}, wrap(OpHead, key, err)
	}
	if !ok {
		return objstore.ObjectInfo{}, wrap(OpHead, key, objstore.ErrNotFound)
	}
	return o.info(key), nil
}

// Put reads body fully, then stores it if opts' precondition holds. If
// size is not -1 and body's length differs, nothing is stored.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts objstore.PutOptions) (objstore.ObjectInfo, error) {
	f := b.begin(ctx, Call{Op: OpPut, Key: key, Opts: opts})
	if err := f.before(ctx); err != nil {
		return objstore.ObjectInfo{}, wrap(OpPut, key, err)
	}
	if opts.IfMatch != "" && opts.IfNoneMatch {
		return objstore.ObjectInfo{}, wrap(OpPut, key, &objstore.InvalidError{What: "option", Value: "IfMatch and IfNoneMatch", Reason: "mutually exclusive"})
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return objstore.ObjectInfo{}, wrap(OpPut, key, fmt.Errorf("reading body: %w", err))
	}
	if size >= 0 && int64(len(data)) != size {
		return objstore.ObjectInfo{}, wrap(OpPut, key, fmt.Errorf("body has %d bytes, size says %d", len(data), size))
	}
	o := newObject(data)

	b.mu.Lock()
	if err := ctx.Err(); err != nil {
		b.mu.Unlock()
		return objstore.ObjectInfo{}, wrap(OpPut, key, err)
	}
	cur, exists := b.objects[key]
	switch {
	case opts.IfNoneMatch && exists:
		err = fmt.Errorf("object exists (If-None-Match): %w", objstore.ErrPreconditionFailed)
	case opts.IfMatch != "" && !exists:
		err = fmt.Errorf("If-Match on a missing object: %w", objstore.ErrNotFound)
	case opts.IfMatch != "" && cur.etag != opts.IfMatch:
		err = fmt.Errorf("etag is %s, If-Match wants %s: %w", cur.etag, opts.IfMatch, objstore.ErrPreconditionFailed)
	default:
		b.objects[key] = o
	}
	b.mu.Unlock()
	if err != nil {
		return objstore.ObjectInfo{}, wrap(OpPut, key, err)
	}
	if err := f.after(); err != nil {
		return objstore.ObjectInfo{}, wrap(OpPut, key, err)
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
func (b *Backend) List(ctx context.Context, prefix string, fn func(objstore.ObjectInfo) error) error {
	f := b.begin(ctx, Call{Op: OpList, Key: prefix})
	if err := f.before(ctx); err != nil {
		return wrap(OpList, prefix, err)
	}
	if err := ctx.Err(); err != nil {
		return wrap(OpList, prefix, err)
	}
	b.mu.Lock()
	var infos []objstore.ObjectInfo
	for k, o := range b.objects {
		if strings.HasPrefix(k, prefix) {
			infos = append(infos, o.info(k))
		}
	}
	b.mu.Unlock()
	slices.SortFunc(infos, func(x, y objstore.ObjectInfo) int { return strings.Compare(x.Key, y.Key) })
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
