package s3store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3part"
)

// Put writes the object if opts' precondition holds. A body of known size
// up to the multipart threshold is sent with one PutObject; a larger one,
// or one of unknown size (-1) that turns out longer than one part, with a
// multipart upload whose CompleteMultipartUpload carries the precondition,
// so the object appears whole and only if the precondition holds at that
// moment. Put holds two parts (the one being sent and the next), or one
// body of up to the threshold, in memory. If size is not -1 and body's length differs,
// nothing is stored.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return driver.ObjectInfo{}, b.fail("put", key, err)
	}
	p, err := s3part.Read(body, size, b.partSize, b.threshold)
	if err != nil {
		return driver.ObjectInfo{}, b.fail("put", key, err)
	}
	if p.Single() {
		return b.putSingle(ctx, key, p.Data(), opts)
	}
	return b.putMultipart(ctx, key, p, opts)
}

func (b *Backend) putSingle(ctx context.Context, key string, data []byte, opts driver.PutOptions) (driver.ObjectInfo, error) {
	in := &s3.PutObjectInput{
		Bucket:        aws.String(b.bucket),
		Key:           aws.String(b.objectKey(key)),
		Body:          bytes.NewReader(data), // seekable: signed, and rewound on retries
		ContentLength: aws.Int64(int64(len(data))),
		Metadata:      opts.Metadata,
	}
	in.IfMatch, in.IfNoneMatch = preconditions(opts.Mode)
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
		return driver.ObjectInfo{}, b.failPut(key, err, opts.Mode)
	}
	return b.putInfo(key, int64(len(data)), out.ETag)
}

func (b *Backend) putInfo(key string, size int64, etag *string) (driver.ObjectInfo, error) {
	if aws.ToString(etag) == "" {
		return driver.ObjectInfo{}, fmt.Errorf("s3store: put %q: the store returned no ETag, so conditional writes cannot work", key)
	}
	return driver.ObjectInfo{Key: key, Size: size, ETag: *etag}, nil
}

// putMultipart uploads p's parts, one at a time, and completes the upload
// with opts' precondition. On any failure it aborts the upload, with a
// context that survives the caller's.
func (b *Backend) putMultipart(ctx context.Context, key string, p *s3part.Body, opts driver.PutOptions) (_ driver.ObjectInfo, err error) {
	ok := b.objectKey(key)
	create := &s3.CreateMultipartUploadInput{
		Bucket:   aws.String(b.bucket),
		Key:      aws.String(ok),
		Metadata: opts.Metadata,
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
		return driver.ObjectInfo{}, b.fail("put", key, err)
	}
	uploadID := up.UploadId
	defer s3part.AbortOnError(ctx, &err, aws.ToString(uploadID), func(actx context.Context) error {
		_, err := b.client.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{
			Bucket:   aws.String(b.bucket),
			Key:      aws.String(ok),
			UploadId: uploadID,
		}, checksumsWhenRequired)
		return err
	})

	var parts []types.CompletedPart
	total, err := p.Upload(func(n int, part []byte, sum [sha256.Size]byte) error {
		out, err := b.client.UploadPart(ctx, &s3.UploadPartInput{
			Bucket:        aws.String(b.bucket),
			Key:           aws.String(ok),
			UploadId:      uploadID,
			PartNumber:    aws.Int32(int32(n)),
			Body:          bytes.NewReader(part),
			ContentLength: aws.Int64(int64(len(part))),
		}, checksumsWhenRequired, payloadHash(sum))
		if err != nil {
			return err
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(int32(n))})
		return nil
	})
	if err != nil {
		return driver.ObjectInfo{}, b.fail("put", key, err)
	}
	complete := &s3.CompleteMultipartUploadInput{
		Bucket:          aws.String(b.bucket),
		Key:             aws.String(ok),
		UploadId:        uploadID,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	}
	complete.IfMatch, complete.IfNoneMatch = preconditions(opts.Mode)
	out, err := b.client.CompleteMultipartUpload(ctx, complete, checksumsWhenRequired)
	if err != nil {
		return driver.ObjectInfo{}, b.failPut(key, err, opts.Mode)
	}
	return b.putInfo(key, total, out.ETag)
}

// payloadHash hands a part's SHA-256, computed by s3part while the
// previous part was being sent, to the SigV4 signer, which then signs with
// it instead of reading the part again to hash it in series with the
// send. Over HTTPS, where the SDK would otherwise send the part unsigned,
// S3 then also checks the part against it.
func payloadHash(sum [sha256.Size]byte) func(*s3.Options) {
	h := hex.EncodeToString(sum[:])
	return func(o *s3.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Finalize.Add(middleware.FinalizeMiddlewareFunc("FencePartPayloadHash",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
					return next.HandleFinalize(v4.SetPayloadHash(ctx, h), in)
				}), middleware.Before)
		})
	}
}

// preconditions returns the If-Match and If-None-Match headers of mode.
func preconditions(mode driver.PutMode) (ifMatch, ifNoneMatch *string) {
	switch m := mode.(type) {
	case driver.Create:
		return nil, aws.String("*")
	case driver.Update:
		return aws.String(m.ETag), nil
	}
	return nil, nil
}
