package objstore

import (
	"context"
	"errors"
	"io"
	"time"
)

// Backend is the narrow interface an object store implements so that a
// Store can fence writes on it. It is deliberately small: get, head,
// conditional put, delete and list. Backends never implement fencing; they
// only have to honour the two preconditions of PutOptions atomically.
//
// Errors: a backend reports a missing object with an error that matches
// ErrNotFound, a failed precondition with one that matches
// ErrPreconditionFailed, and a concurrent conditional write that the store
// refused to order (S3's 409 ConditionalRequestConflict) with one that
// matches ErrConflict. Any other error may hide a write that was applied;
// the Store treats it as ambiguous.
type Backend interface {
	// Get opens the object's current content. The caller closes the reader.
	Get(ctx context.Context, key string) (io.ReadCloser, ObjectInfo, error)
	// Head returns the object's metadata without its content.
	Head(ctx context.Context, key string) (ObjectInfo, error)
	// Put writes the object if opts' precondition holds, atomically with
	// respect to every other Put on the same key. size is the exact
	// length of body, or -1 when unknown.
	Put(ctx context.Context, key string, body io.Reader, size int64, opts PutOptions) (ObjectInfo, error)
	// Delete removes the object unconditionally. Deleting a missing object
	// is not an error.
	Delete(ctx context.Context, key string) error
	// List calls fn for every object whose key starts with prefix, in
	// lexical key order. It stops and returns fn's error if fn fails.
	List(ctx context.Context, prefix string, fn func(ObjectInfo) error) error
	// Close releases the backend's resources.
	Close() error
}

// PutOptions holds the precondition of a Put. The zero value is an
// unconditional write. IfMatch and IfNoneMatch are mutually exclusive.
type PutOptions struct {
	// IfMatch, when set, makes the write succeed only if the object exists
	// and its current ETag equals IfMatch. A missing object fails with
	// ErrNotFound or ErrPreconditionFailed (S3 stores differ).
	IfMatch string
	// IfNoneMatch makes the write succeed only if no object exists at the
	// key (If-None-Match: *).
	IfNoneMatch bool
	// ContentType is stored with the object when the backend supports it.
	ContentType string
}

// ObjectInfo describes one stored object.
type ObjectInfo struct {
	Key      string
	Size     int64
	ETag     string
	Modified time.Time
}

// Backend error classes. Backends wrap these (fmt.Errorf("...: %w", ...))
// so that errors.Is works, and keep the underlying SDK error in the chain
// for errors.As.
var (
	// ErrNotFound: the object, bucket or domain does not exist.
	ErrNotFound = errors.New("objstore: not found")
	// ErrPreconditionFailed: a conditional write's precondition failed
	// (HTTP 412).
	ErrPreconditionFailed = errors.New("objstore: precondition failed")
	// ErrConflict: a concurrent conditional write to the same key is in
	// progress (HTTP 409 ConditionalRequestConflict); retry after a pause.
	ErrConflict = errors.New("objstore: conditional request conflict")
)

// ConditionalGetter is implemented by backends that can revalidate an
// object: a GET with If-None-Match that answers 304 Not Modified, without
// the content, when the object is unchanged. A Store uses it to revalidate
// a cached manifest instead of downloading it again. Backends without it
// work unchanged.
type ConditionalGetter interface {
	// GetIfNoneMatch is Get, except that it fails with an error matching
	// ErrNotModified, and returns no reader, when the object's current
	// ETag equals etag.
	GetIfNoneMatch(ctx context.Context, key, etag string) (io.ReadCloser, ObjectInfo, error)
}

// ErrNotModified: a conditional GET found the object unchanged (HTTP 304).
var ErrNotModified = errors.New("objstore: not modified")
