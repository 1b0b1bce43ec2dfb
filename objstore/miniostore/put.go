package miniostore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore"
)

// abortTimeout bounds the AbortMultipartUpload sent after a failed
// multipart upload, which runs even when the caller's context is done.
const abortTimeout = time.Minute

// Put writes the object if opts' precondition holds. A body of known size
// up to the part size, or of unknown size (-1) that ends within one part,
// is sent with one PutObject carrying If-Match or If-None-Match: *. A
// larger body goes in a multipart upload whose CompleteMultipartUpload
// carries the precondition, so the object appears whole and only if the
// precondition holds at that moment (see the package documentation for
// why this does not use minio-go's PutObject). Either way Put holds at
// most one part in memory. If size is not -1 and body's length differs,
// nothing is stored.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts objstore.PutOptions) (objstore.ObjectInfo, error) {
	if b.err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, b.err)
	}
	if opts.IfMatch != "" && opts.IfNoneMatch {
		return objstore.ObjectInfo{}, b.fail("put", key, &objstore.InvalidError{What: "option", Value: "IfMatch and IfNoneMatch", Reason: "mutually exclusive"})
	}
	if err := ctx.Err(); err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, err)
	}
	partSize := b.partSize
	limit := partSize
	var buf []byte
	if size >= 0 {
		// Never read more than one byte past the declared size.
		body = io.LimitReader(body, size+1)
		partSize = max(partSize, (size+maxParts-1)/maxParts)
		limit = partSize
		if size <= b.partSize {
			limit = size + 1
		}
		buf = make([]byte, 0, limit)
	}
	first, eof, err := fill(body, buf, limit)
	if err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, fmt.Errorf("reading body: %w", err))
	}
	if size >= 0 && size <= b.partSize || size < 0 && eof {
		if err := checkSize(int64(len(first)), size); err != nil {
			return objstore.ObjectInfo{}, b.fail("put", key, err)
		}
		return b.putSingle(ctx, key, first, opts)
	}
	if eof {
		// Shorter than declared: fail before starting an upload.
		return objstore.ObjectInfo{}, b.fail("put", key, checkSize(int64(len(first)), size))
	}
	return b.putMultipart(ctx, key, first, body, size, partSize, opts)
}

func checkSize(n, size int64) error {
	if size >= 0 && n != size {
		if n > size {
			return fmt.Errorf("body is longer than the declared size %d", size)
		}
		return fmt.Errorf("body has %d bytes, size says %d", n, size)
	}
	return nil
}

// fill reads r into buf[:0] until it holds limit bytes or r ends, growing
// buf as needed but never beyond limit. eof reports that r ended. Small
// bodies get small buffers: buf doubles from 64 KiB to 1 MiB, then
// jumps to limit.
func fill(r io.Reader, buf []byte, limit int64) (_ []byte, eof bool, _ error) {
	buf = buf[:0]
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			c := max(2*int64(cap(buf)), 64<<10)
			if c > 1<<20 {
				c = limit
			}
			c = min(c, limit)
			nb := make([]byte, len(buf), c)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):min(int64(cap(buf)), limit)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, true, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
	return buf, false, nil
}

// putOptions returns minio-go options carrying opts' precondition.
func (b *Backend) putOptions(opts objstore.PutOptions) minio.PutObjectOptions {
	var po minio.PutObjectOptions
	if opts.IfMatch != "" {
		// minio-go reports ETags unquoted and quotes them here; accept a
		// quoted one too, as S3 clients report them.
		po.SetMatchETag(strings.Trim(opts.IfMatch, `"`))
	}
	if opts.IfNoneMatch {
		po.SetMatchETagExcept("*")
	}
	po.ContentType = opts.ContentType
	return po
}

func (b *Backend) putSingle(ctx context.Context, key string, data []byte, opts objstore.PutOptions) (objstore.ObjectInfo, error) {
	po := b.putOptions(opts)
	po.ServerSideEncryption = b.sse
	// Core.PutObject is exactly one PUT; the seekable body can be signed
	// and rewound when minio-go retries.
	ui, err := b.core.PutObject(ctx, b.bucket, b.objectKey(key), bytes.NewReader(data), int64(len(data)), "", "", po)
	if err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, err)
	}
	return putInfo(key, int64(len(data)), ui.ETag)
}

func putInfo(key string, size int64, etag string) (objstore.ObjectInfo, error) {
	if etag == "" {
		return objstore.ObjectInfo{}, fmt.Errorf("miniostore: put %q: the store returned no ETag, so conditional writes cannot work", key)
	}
	return objstore.ObjectInfo{Key: key, Size: size, ETag: etag}, nil
}

// putMultipart uploads first, then the rest of body, one part at a time,
// and completes the upload with opts' precondition. On any failure it
// aborts the upload, with a context that survives the caller's.
func (b *Backend) putMultipart(ctx context.Context, key string, first []byte, body io.Reader, size, partSize int64, opts objstore.PutOptions) (_ objstore.ObjectInfo, err error) {
	ok := b.objectKey(key)
	// The precondition goes on CompleteMultipartUpload only: that is the
	// moment the object appears.
	create := minio.PutObjectOptions{ContentType: opts.ContentType, ServerSideEncryption: b.sse}
	uploadID, err := b.core.NewMultipartUpload(ctx, b.bucket, ok, create)
	if err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, err)
	}
	defer func() {
		if err != nil {
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
			defer cancel()
			if aerr := b.core.AbortMultipartUpload(actx, b.bucket, ok, uploadID); aerr != nil {
				err = fmt.Errorf("%w (and aborting multipart upload %s failed: %v)", err, uploadID, aerr)
			}
		}
	}()

	var (
		parts []minio.CompletePart
		total int64
		buf   = first
		eof   bool
	)
	for n := 1; ; n++ {
		if n > maxParts {
			return objstore.ObjectInfo{}, b.fail("put", key, fmt.Errorf("body exceeds %d parts of %d bytes", maxParts, partSize))
		}
		if n > 1 {
			if buf, eof, err = fill(body, buf, partSize); err != nil {
				return objstore.ObjectInfo{}, b.fail("put", key, fmt.Errorf("reading body: %w", err))
			}
			if len(buf) == 0 {
				break
			}
		}
		total += int64(len(buf))
		if size >= 0 && total > size {
			return objstore.ObjectInfo{}, b.fail("put", key, checkSize(total, size))
		}
		p, err := b.core.PutObjectPart(ctx, b.bucket, ok, uploadID, n, bytes.NewReader(buf), int64(len(buf)), minio.PutObjectPartOptions{})
		if err != nil {
			return objstore.ObjectInfo{}, b.fail("put", key, err)
		}
		parts = append(parts, minio.CompletePart{PartNumber: n, ETag: p.ETag})
		if eof || int64(len(buf)) < partSize {
			break
		}
	}
	if err := checkSize(total, size); err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, err)
	}
	ui, err := b.core.CompleteMultipartUpload(ctx, b.bucket, ok, uploadID, parts, b.putOptions(objstore.PutOptions{IfMatch: opts.IfMatch, IfNoneMatch: opts.IfNoneMatch}))
	if err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, err)
	}
	return putInfo(key, total, ui.ETag)
}
