package driver

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Backend is the narrow interface an object store implements: get, head,
// conditional put, delete and list.
type Backend interface {
	// Get opens the object's content, or the range opts asks for. The
	// caller closes the reader. The ObjectInfo describes the whole
	// object, whatever the range.
	Get(ctx context.Context, key string, opts GetOptions) (io.ReadCloser, ObjectInfo, error)
	// Head returns the object's metadata without its content.
	Head(ctx context.Context, key string) (ObjectInfo, error)
	// Put writes the object if opts.Mode allows it, atomically with
	// respect to every other Put on the same key: the object appears
	// whole or not at all. size is the exact length of body, or -1 when
	// unknown; a body whose length differs from a known size stores
	// nothing.
	Put(ctx context.Context, key string, body io.Reader, size int64, opts PutOptions) (ObjectInfo, error)
	// Delete removes the object unconditionally. Deleting a missing
	// object is not an error.
	Delete(ctx context.Context, key string) error
	// List calls fn for every object whose key starts with prefix, in
	// lexical key order. It stops and returns fn's error if fn fails.
	List(ctx context.Context, prefix string, fn func(ObjectInfo) error) error
	// Location names where the backend writes, for example
	// "s3://bucket/prefix" or "file:///var/lib/fence". Two backends with
	// one location see the same objects; the capability probe's verdict
	// is cached per location.
	Location() string
	// Close releases the backend's resources.
	Close() error
}

// GetOptions asks for part of an object, or for it only if it changed.
// The zero value reads the whole object.
type GetOptions struct {
	// Offset is the first byte to read. A ranged Get (Offset or Length
	// set) starts inside the object: the Store never asks for a range
	// of an empty object or one that starts at or past its end.
	Offset int64
	// Length is the number of bytes to read from Offset; 0 reads to the
	// end of the object. A range that runs past the end is cut there.
	Length int64
	// IfNoneMatch, when set, makes Get fail with ErrNotModified, and
	// return no reader, when the object's current ETag equals it.
	IfNoneMatch string
}

// PutOptions says how a Put may write.
type PutOptions struct {
	// Mode is the write's precondition; nil means Overwrite.
	Mode PutMode
	// ContentType is stored with the object when the backend supports it.
	ContentType string
	// Metadata is stored with the object (S3's x-amz-meta-* headers)
	// and returned by Head and Get. Names are lower-case letters, digits
	// and '-'. A backend without metadata (see Capabilities) fails a Put
	// that has any with ErrUnsupported, rather than drop it.
	Metadata map[string]string
}

// ObjectInfo describes one stored object.
type ObjectInfo struct {
	Key      string
	Size     int64
	ETag     string
	Modified time.Time
	// Metadata is the object's metadata, from Head and Get, with
	// lower-case names; nil when it has none.
	Metadata map[string]string
}

// Window returns the first byte and the length of the part of an object
// of size bytes that opts asks for, cut at the object's end.
func (o GetOptions) Window(size int64) (offset, length int64) {
	offset = min(max(o.Offset, 0), size)
	length = size - offset
	if o.Length > 0 && o.Length < length {
		length = o.Length
	}
	return offset, length
}

// RangeHeader returns the HTTP Range header for opts ("bytes=10-19",
// "bytes=10-"), or "" when opts asks for the whole object.
func (o GetOptions) RangeHeader() string {
	switch {
	case o.Offset <= 0 && o.Length <= 0:
		return ""
	case o.Length <= 0:
		return fmt.Sprintf("bytes=%d-", o.Offset)
	}
	return fmt.Sprintf("bytes=%d-%d", max(o.Offset, 0), max(o.Offset, 0)+o.Length-1)
}
