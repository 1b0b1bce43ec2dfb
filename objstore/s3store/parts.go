package s3store

import (
	"context"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/fencedstore/fence/objstore/driver"
)

var _ driver.PartUploader = (*Backend)(nil)

// CreateParts starts a multipart upload of key (driver.PartUploader),
// with the backend's server-side encryption and opts' content type and
// metadata.
func (b *Backend) CreateParts(ctx context.Context, key string, opts driver.PutOptions) (string, error) {
	out, err := b.client.CreateMultipartUpload(ctx, b.createMultipartInput(key, opts), checksumsWhenRequired)
	if err != nil {
		return "", b.fail("create parts", key, err)
	}
	return aws.ToString(out.UploadId), nil
}

// UploadPart streams body to the store as part n with one UploadPart,
// without a buffer: the request is signed with UNSIGNED-PAYLOAD, since
// the part's SHA-256 is not known before it is sent (over HTTPS, TLS
// protects the bytes in transit; over plain HTTP nothing does, as with
// any unsigned payload). A body that cannot be rewound is not retried
// by the SDK; the caller uploads the part again.
func (b *Backend) UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64) (string, error) {
	if err := driver.CheckPart(n, size); err != nil {
		return "", b.fail("upload part", key, err)
	}
	out, err := b.client.UploadPart(ctx, &s3.UploadPartInput{
		Bucket:        aws.String(b.bucket),
		Key:           aws.String(b.objectKey(key)),
		UploadId:      aws.String(uploadID),
		PartNumber:    aws.Int32(int32(n)),
		Body:          driver.ExactReader(body, size),
		ContentLength: aws.Int64(size),
	}, checksumsWhenRequired, unsignedPayload, expectContinue)
	if err != nil {
		return "", b.fail("upload part", key, fmt.Errorf("part %d: %w", n, err))
	}
	return aws.ToString(out.ETag), nil
}

// CompleteParts completes the upload with mode's precondition on
// CompleteMultipartUpload. S3's EntityTooSmall is a
// *driver.PartTooSmallError (S3 does not say which part).
func (b *Backend) CompleteParts(ctx context.Context, key, uploadID string, parts []driver.CompletedPart, mode driver.PutMode) (driver.ObjectInfo, error) {
	if err := driver.CheckCompleted(parts); err != nil {
		return driver.ObjectInfo{}, b.fail("complete parts", key, err)
	}
	cps := make([]types.CompletedPart, len(parts))
	for i, p := range parts {
		cps[i] = types.CompletedPart{PartNumber: aws.Int32(int32(p.N)), ETag: aws.String(p.ETag)}
	}
	in := &s3.CompleteMultipartUploadInput{
		Bucket:          aws.String(b.bucket),
		Key:             aws.String(b.objectKey(key)),
		UploadId:        aws.String(uploadID),
		MultipartUpload: &types.CompletedMultipartUpload{Parts: cps},
	}
	in.IfMatch, in.IfNoneMatch = preconditions(mode)
	out, err := b.client.CompleteMultipartUpload(ctx, in, checksumsWhenRequired)
	if err != nil {
		if code, _ := apiError(err); code == "EntityTooSmall" {
			return driver.ObjectInfo{}, fmt.Errorf("s3store: complete parts %q: %w", key, &driver.PartTooSmallError{Size: -1, Min: MinPartSize, Err: b.service(err, code)})
		}
		return driver.ObjectInfo{}, b.failPut(key, err, mode)
	}
	if aws.ToString(out.ETag) == "" {
		return driver.ObjectInfo{}, fmt.Errorf("s3store: complete parts %q: the store returned no ETag", key)
	}
	// CompleteMultipartUpload does not report the size.
	info, err := b.Head(ctx, key)
	if err != nil {
		return driver.ObjectInfo{}, fmt.Errorf("s3store: complete parts %q: the upload completed, but reading its size failed: %w", key, err)
	}
	return info, nil
}

// AbortParts aborts the multipart upload. An upload that no longer
// exists (S3's NoSuchUpload) is not an error.
func (b *Backend) AbortParts(ctx context.Context, key, uploadID string) error {
	_, err := b.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
		Bucket:   aws.String(b.bucket),
		Key:      aws.String(b.objectKey(key)),
		UploadId: aws.String(uploadID),
	}, checksumsWhenRequired)
	if code, _ := apiError(err); err != nil && code != "NoSuchUpload" {
		return b.fail("abort parts", key, err)
	}
	return nil
}

// unsignedPayload signs a request with UNSIGNED-PAYLOAD, so that the
// SDK sends a body it cannot rewind without reading it first to hash
// it.
func unsignedPayload(o *s3.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Finalize.Add(middleware.FinalizeMiddlewareFunc("FenceUnsignedPayload",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				return next.HandleFinalize(v4.SetPayloadHash(ctx, "UNSIGNED-PAYLOAD"), in)
			}), middleware.Before)
	})
}

// createMultipartInput is the CreateMultipartUpload of key: with the
// backend's server-side encryption and opts' content type and metadata.
func (b *Backend) createMultipartInput(key string, opts driver.PutOptions) *s3.CreateMultipartUploadInput {
	in := &s3.CreateMultipartUploadInput{
		Bucket:   aws.String(b.bucket),
		Key:      aws.String(b.objectKey(key)),
		Metadata: opts.Metadata,
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
	return in
}
