package miniostore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3part"
)

// Put writes the object if opts' precondition holds. A body of known size
// up to the part size, or of unknown size (-1) that ends within one part,
// is sent with one PutObject carrying If-Match or If-None-Match: *: a body
// held in memory (see s3part.InMemory) as it is, any other read into a
// buffer first. A larger body goes in a multipart upload whose
// CompleteMultipartUpload carries the precondition, so the object appears
// whole and only if the precondition holds at that moment (see the
// package documentation for why this does not use minio-go's PutObject).
// Put holds at most two parts in memory. If size is not -1 and body's
// length differs, nothing is stored.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return driver.ObjectInfo{}, b.fail("put", key, err)
	}
	// The part size is also the multipart threshold.
	if mem, ok := s3part.InMemory(body, size); ok && size <= b.partSize {
		return b.putSingle(ctx, key, mem, size, opts) // sent as it is, without a copy
	}
	p, err := s3part.Read(body, size, b.partSize, b.partSize)
	if err != nil {
		return driver.ObjectInfo{}, b.fail("put", key, err)
	}
	if p.Single() {
		data := p.Data()
		return b.putSingle(ctx, key, bytes.NewReader(data), int64(len(data)), opts)
	}
	return b.putMultipart(ctx, key, p, opts)
}

// PutMultipart is Put with a multipart upload whatever the body's size:
// a body that fits in one part is one part, however small. size must be
// known. It implements driver.MultipartPutter, with which the capability
// probe proves that the store honours the precondition on
// CompleteMultipartUpload.
func (b *Backend) PutMultipart(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return driver.ObjectInfo{}, b.fail("put", key, err)
	}
	if size < 0 {
		return driver.ObjectInfo{}, b.fail("put", key, errors.New("PutMultipart needs the body's size"))
	}
	p, err := s3part.Read(body, size, b.partSize, -1)
	if err != nil {
		return driver.ObjectInfo{}, b.fail("put", key, err)
	}
	return b.putMultipart(ctx, key, p, opts)
}

// putOptions returns minio-go options carrying opts' precondition.
func (b *Backend) putOptions(opts driver.PutOptions) minio.PutObjectOptions {
	var po minio.PutObjectOptions
	switch m := opts.Mode.(type) {
	case driver.Update:
		// minio-go reports ETags unquoted and quotes them here; accept a
		// quoted one too, as S3 clients report them.
		po.SetMatchETag(strings.Trim(m.ETag, `"`))
	case driver.Create:
		po.SetMatchETagExcept("*")
	}
	po.ContentType = opts.ContentType
	po.UserMetadata = opts.Metadata
	return po
}

// putSingle sends body, of size bytes from its start, with one PutObject.
func (b *Backend) putSingle(ctx context.Context, key string, body io.ReadSeeker, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	po := b.putOptions(opts)
	po.ServerSideEncryption = b.sse
	// Core.PutObject is exactly one PUT; the seekable body can be signed
	// and rewound (to its start) when minio-go retries.
	ui, err := b.core.PutObject(ctx, b.bucket, b.objectKey(key), body, size, "", "", po)
	if err != nil {
		return driver.ObjectInfo{}, b.failPut(key, err, opts.Mode)
	}
	return putInfo(key, size, ui.ETag)
}

func putInfo(key string, size int64, etag string) (driver.ObjectInfo, error) {
	if etag == "" {
		return driver.ObjectInfo{}, fmt.Errorf("miniostore: put %q: the store returned no ETag, so conditional writes cannot work", key)
	}
	return driver.ObjectInfo{Key: key, Size: size, ETag: etag}, nil
}

// putMultipart uploads p's parts, one at a time, and completes the upload
// with opts' precondition. On any failure it aborts the upload, with a
// context that survives the caller's.
func (b *Backend) putMultipart(ctx context.Context, key string, p *s3part.Body, opts driver.PutOptions) (_ driver.ObjectInfo, err error) {
	ok := b.objectKey(key)
	// The precondition goes on CompleteMultipartUpload only: that is the
	// moment the object appears.
	create := minio.PutObjectOptions{ContentType: opts.ContentType, ServerSideEncryption: b.sse, UserMetadata: opts.Metadata}
	uploadID, err := b.core.NewMultipartUpload(ctx, b.bucket, ok, create)
	if err != nil {
		return driver.ObjectInfo{}, b.fail("put", key, err)
	}
	defer s3part.AbortOnError(ctx, &err, uploadID, func(actx context.Context) error {
		return b.core.AbortMultipartUpload(actx, b.bucket, ok, uploadID)
	})

	var parts []minio.CompletePart
	total, err := p.Upload(func(n int, part []byte, sum [sha256.Size]byte) error {
		// Signed with the part's SHA-256, which s3part computed while the
		// previous part was sent, rather than with minio-go's streaming
		// signature, which hashes the part as it is sent.
		pi, err := b.core.PutObjectPart(ctx, b.bucket, ok, uploadID, n, bytes.NewReader(part), int64(len(part)), minio.PutObjectPartOptions{
			Sha256Hex:            hex.EncodeToString(sum[:]),
			DisableContentSha256: true,
		})
		if err != nil {
			return err
		}
		parts = append(parts, minio.CompletePart{PartNumber: n, ETag: pi.ETag})
		return nil
	})
	if err != nil {
		return driver.ObjectInfo{}, b.fail("put", key, err)
	}
	ui, err := b.core.CompleteMultipartUpload(ctx, b.bucket, ok, uploadID, parts, b.putOptions(driver.PutOptions{Mode: opts.Mode}))
	if err != nil {
		return driver.ObjectInfo{}, b.failPut(key, err, opts.Mode)
	}
	return putInfo(key, total, ui.ETag)
}
