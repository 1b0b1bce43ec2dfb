package s3store

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/fencedstore/fence/objstore"
)

// abortTimeout bounds the AbortMultipartUpload sent after a failed
// multipart upload, which runs even when the caller's context is done.
const abortTimeout = time.Minute

// Put writes the object if opts' precondition holds. A body of known size
// up to the multipart threshold is sent with one PutObject; a larger one,
// or one of unknown size (-1) that turns out longer than one part, with a
// multipart upload whose CompleteMultipartUpload carries the precondition,
// so the object appears whole and only if the precondition holds at that
// moment. Either way Put holds one part, or one body of up to the
// threshold, in memory. If size is not -1 and body's length differs,
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
	if size >= 0 {
		// Never read more than one byte past the declared size.
		body = io.LimitReader(body, size+1)
		partSize = max(partSize, (size+maxParts-1)/maxParts)
	}
	limit := partSize
	if size >= 0 && size <= b.threshold {
		limit = size + 1
	}
	var buf []byte
	if size >= 0 {
		buf = make([]byte, 0, min(limit, size+1))
	}
	first, eof, err := fill(body, buf, limit)
	if err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, fmt.Errorf("reading body: %w", err))
	}
	if size >= 0 && size <= b.threshold || size < 0 && eof {
		if err := checkSize(int64(len(first)), size); err != nil {
			return objstore.ObjectInfo{}, b.fail("put", key, err)
		}
		return b.putSingle(ctx, key, first, opts)
	}
	if eof {
		if err := checkSize(int64(len(first)), size); err != nil {
			return objstore.ObjectInfo{}, b.fail("put", key, err)
		}
	}
	return b.putMultipart(ctx, key, first, eof, body, size, partSize, opts)
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

func (b *Backend) putSingle(ctx context.Context, key string, data []byte, opts objstore.PutOptions) (objstore.ObjectInfo, error) {
	in := &s3.PutObjectInput{
		Bucket:        aws.String(b.bucket),
		Key:           aws.String(b.objectKey(key)),
		Body:          bytes.NewReader(data), // seekable: signed, and rewound on retries
		ContentLength: aws.Int64(int64(len(data))),
	}
	if opts.IfMatch != "" {
		in.IfMatch = aws.String(opts.IfMatch)
	}
	if opts.IfNoneMatch {
		in.IfNoneMatch = aws.String("*")
	}
	if opts.ContentType != "" {
		in.ContentType = aws.String(opts.ContentType)
	}
	if b.sse != "" {
		in.ServerSideEncryption = b.sse
		if b.kmsKeyID != "" {
			in.SSEKMSKeyId = aws.String(b.kmsKeyID)
		}
	}
	out, err := b.client.PutObject(ctx, in, checksumsWhenRequired)
	if err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, err)
	}
	return b.putInfo(key, int64(len(data)), out.ETag)
}

func (b *Backend) putInfo(key string, size int64, etag *string) (objstore.ObjectInfo, error) {
	if aws.ToString(etag) == "" {
		return objstore.ObjectInfo{}, fmt.Errorf("s3store: put %q: the store returned no ETag, so conditional writes cannot work", key)
	}
	return objstore.ObjectInfo{Key: key, Size: size, ETag: *etag}, nil
}

// putMultipart uploads first, then the rest of body, one part at a time,
// and completes the upload with opts' precondition. On any failure it
// aborts the upload, with a context that survives the caller's.
func (b *Backend) putMultipart(ctx context.Context, key string, first []byte, eof bool, body io.Reader, size, partSize int64, opts objstore.PutOptions) (_ objstore.ObjectInfo, err error) {
	ok := b.objectKey(key)
	create := &s3.CreateMultipartUploadInput{
		Bucket: aws.String(b.bucket),
		Key:    aws.String(ok),
	}
	if opts.ContentType != "" {
		create.ContentType = aws.String(opts.ContentType)
	}
	if b.sse != "" {
		create.ServerSideEncryption = b.sse
		if b.kmsKeyID != "" {
			create.SSEKMSKeyId = aws.String(b.kmsKeyID)
		}
	}
	up, err := b.client.CreateMultipartUpload(ctx, create, checksumsWhenRequired)
	if err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, err)
	}
	uploadID := up.UploadId
	defer func() {
		if err != nil {
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
			defer cancel()
			if _, aerr := b.client.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{
				Bucket:   aws.String(b.bucket),
				Key:      aws.String(ok),
				UploadId: uploadID,
			}, checksumsWhenRequired); aerr != nil {
				err = fmt.Errorf("%w (and aborting multipart upload %s failed: %v)", err, aws.ToString(uploadID), aerr)
			}
		}
	}()

	var (
		parts []types.CompletedPart
		total int64
		buf   = first
	)
	for n := int32(1); ; n++ {
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
		out, err := b.client.UploadPart(ctx, &s3.UploadPartInput{
			Bucket:        aws.String(b.bucket),
			Key:           aws.String(ok),
			UploadId:      uploadID,
			PartNumber:    aws.Int32(n),
			Body:          bytes.NewReader(buf),
			ContentLength: aws.Int64(int64(len(buf))),
		}, checksumsWhenRequired)
		if err != nil {
			return objstore.ObjectInfo{}, b.fail("put", key, err)
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(n)})
		if eof || int64(len(buf)) < partSize {
			break
		}
	}
	if err := checkSize(total, size); err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, err)
	}
	complete := &s3.CompleteMultipartUploadInput{
		Bucket:          aws.String(b.bucket),
		Key:             aws.String(ok),
		UploadId:        uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	}
	if opts.IfMatch != "" {
		complete.IfMatch = aws.String(opts.IfMatch)
	}
	if opts.IfNoneMatch {
		complete.IfNoneMatch = aws.String("*")
	}
	out, err := b.client.CompleteMultipartUpload(ctx, complete, checksumsWhenRequired)
	if err != nil {
		return objstore.ObjectInfo{}, b.fail("put", key, err)
	}
	return b.putInfo(key, total, out.ETag)
}
