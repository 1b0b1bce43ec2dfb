package gcsstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"cloud.google.com/go/storage"

	"github.com/fencedstore/fence/objstore/driver"
)

// errSizeMismatch: the body was not as long as the size the caller gave.
var errSizeMismatch = errors.New("body length differs from the declared size")

// conditions returns the GCS precondition of mode: Create is
// ifGenerationMatch=0 (DoesNotExist), Update is ifGenerationMatch=GEN.
// ok is false for an Update whose ETag no object can have: such a put
// fails its precondition without a request (a GenerationMatch of 0 would
// be no condition at all).
func conditions(mode driver.PutMode) (c storage.Conditions, cond, ok bool) {
	switch m := mode.(type) {
	case driver.Create:
		return storage.Conditions{DoesNotExist: true}, true, true
	case driver.Update:
		gen, ok := generation(m.ETag)
		return storage.Conditions{GenerationMatch: gen}, true, ok
	}
	return storage.Conditions{}, false, true
}

// chunkFor is the ChunkSize of a Put of size bytes (-1: unknown) with
// the Backend's chunk: the SDK allocates a whole chunk for every upload,
// the one request of a small body included, so a body known to fit in a
// chunk gets the smallest one that holds it, in GCS's 256 KiB granules
// (at least one: a ChunkSize of 0 would turn off the SDK's retries). A
// 1 KiB manifest write allocates 256 KiB, not 16 MiB. The SDK still
// sends such a body in one request, also when it fills its chunk exactly
// (TestSmallPutSmallBuffer).
func chunkFor(size int64, chunk int) int {
	if size < 0 || size >= int64(chunk) {
		return chunk
	}
	granules := max((size+MinChunkSize-1)/MinChunkSize, 1)
	return int(granules * MinChunkSize)
}

// Put writes the object if opts.Mode allows it. The precondition travels
// as ifGenerationMatch on the upload request: on the one request of a
// body that fits in a chunk, and on the request that starts a resumable
// upload of a larger one, which GCS checks again when the last chunk
// makes the object appear. A body whose length differs from a known size
// stores nothing: the upload is cancelled before its last request.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	cond, conditional, ok := conditions(opts.Mode)
	if !ok {
		return driver.ObjectInfo{}, fmt.Errorf("gcsstore: put %q: ETag %q is no generation: %w", key, opts.Mode.(driver.Update).ETag, driver.ErrPreconditionFailed)
	}
	if err := ctx.Err(); err != nil {
		return driver.ObjectInfo{}, fmt.Errorf("gcsstore: put %q: %w", key, err)
	}
	o := b.object(key)
	if conditional {
		o = o.If(cond)
	}
	// The SDK retries a conditional upload (idempotent to it) until the
	// context ends, whatever WithMaxAttempts says; this bounds it.
	var attempts atomic.Int64
	o = o.Retryer(storage.WithErrorFunc(func(err error) bool {
		return shouldRetry(err) && attempts.Add(1) < int64(b.attempts)
	}))
	// Cancelling wctx before Close abandons the upload: nothing appears.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := o.NewWriter(wctx)
	w.ChunkSize = chunkFor(size, b.chunk)
	w.ContentType = opts.ContentType
	if w.ContentType == "" {
		w.ContentType = "application/octet-stream"
	}
	if len(opts.Metadata) > 0 {
		w.Metadata = opts.Metadata
	}
	src := body
	if size >= 0 {
		src = io.LimitReader(body, size+1)
	}
	n, err := io.Copy(w, src)
	if err == nil && size >= 0 && n != size {
		err = fmt.Errorf("gcsstore: put %q: read %d bytes of a body declared as %d: %w", key, min(n, size+1), size, errSizeMismatch)
	}
	if err != nil {
		// Abandon the upload before its last request: nothing appears.
		cancel()
		_ = w.Close()
		if ctx.Err() != nil {
			return driver.ObjectInfo{}, fmt.Errorf("gcsstore: put %q: %w", key, ctx.Err())
		}
		if errors.Is(err, errSizeMismatch) {
			return driver.ObjectInfo{}, err
		}
		return driver.ObjectInfo{}, b.failPut(ctx, key, err, opts.Mode)
	}
	if err := w.Close(); err != nil {
		return driver.ObjectInfo{}, b.failPut(ctx, key, err, opts.Mode)
	}
	return b.info(key, w.Attrs()), nil
}
