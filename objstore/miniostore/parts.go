package miniostore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/driver"
)

var _ driver.PartUploader = (*Backend)(nil)

// CreateParts starts a multipart upload of key (driver.PartUploader),
// with the backend's server-side encryption and opts' content type and
// metadata.
func (b *Backend) CreateParts(ctx context.Context, key string, opts driver.PutOptions) (string, error) {
	create := minio.PutObjectOptions{ContentType: opts.ContentType, ServerSideEncryption: b.sse, UserMetadata: opts.Metadata}
	id, err := b.core.NewMultipartUpload(ctx, b.bucket, b.objectKey(key), create)
	if err != nil {
		return "", b.fail("create parts", key, err)
	}
	return id, nil
}

// UploadPart streams body to the store as part n with one
// PutObjectPart, without a buffer: the request is signed with
// UNSIGNED-PAYLOAD rather than with minio-go's streaming signature,
// which would hash every chunk as it is sent (over HTTPS, TLS protects
// the bytes in transit; over plain HTTP nothing does, as with any
// unsigned payload).
func (b *Backend) UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64) (string, error) {
	if err := driver.CheckPart(n, size); err != nil {
		return "", b.fail("upload part", key, err)
	}
	p, err := b.core.PutObjectPart(ctx, b.bucket, b.objectKey(key), uploadID, n, driver.ExactReader(body, size), size,
		minio.PutObjectPartOptions{DisableContentSha256: true})
	if err != nil {
		return "", b.fail("upload part", key, fmt.Errorf("part %d: %w", n, err))
	}
	return p.ETag, nil
}

// CompleteParts completes the upload with mode's precondition on
// CompleteMultipartUpload. S3's EntityTooSmall is a
// *driver.PartTooSmallError.
func (b *Backend) CompleteParts(ctx context.Context, key, uploadID string, parts []driver.CompletedPart, mode driver.PutMode) (driver.ObjectInfo, error) {
	if err := driver.CheckCompleted(parts); err != nil {
		return driver.ObjectInfo{}, b.fail("complete parts", key, err)
	}
	cps := make([]minio.CompletePart, len(parts))
	for i, p := range parts {
		cps[i] = minio.CompletePart{PartNumber: p.N, ETag: p.ETag}
	}
	ui, err := b.core.CompleteMultipartUpload(ctx, b.bucket, b.objectKey(key), uploadID, cps, b.putOptions(driver.PutOptions{Mode: mode}))
	if err != nil {
		var er minio.ErrorResponse
		if errors.As(err, &er) && er.Code == "EntityTooSmall" {
			return driver.ObjectInfo{}, fmt.Errorf("miniostore: complete parts %q: %w", key,
				&driver.PartTooSmallError{Size: -1, Min: driver.MinPartSize, Err: driver.Service(err, er.Code, er.StatusCode, er.Message)})
		}
		return driver.ObjectInfo{}, b.failPut(key, err, mode)
	}
	if ui.ETag == "" {
		return driver.ObjectInfo{}, fmt.Errorf("miniostore: complete parts %q: the store returned no ETag", key)
	}
	// CompleteMultipartUpload does not report the size.
	info, err := b.Head(ctx, key)
	if err != nil {
		return driver.ObjectInfo{}, fmt.Errorf("miniostore: complete parts %q: the upload completed, but reading its size failed: %w", key, err)
	}
	return info, nil
}

// AbortParts aborts the multipart upload. An upload that no longer
// exists (S3's NoSuchUpload) is not an error.
func (b *Backend) AbortParts(ctx context.Context, key, uploadID string) error {
	err := b.core.AbortMultipartUpload(ctx, b.bucket, b.objectKey(key), uploadID)
	var er minio.ErrorResponse
	if err != nil && !(errors.As(err, &er) && er.Code == "NoSuchUpload") {
		return b.fail("abort parts", key, err)
	}
	return nil
}
