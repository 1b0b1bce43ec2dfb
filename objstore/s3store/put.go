package s3store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
// up to the multipart threshold is sent with one PutObject, and so is a
// body that can be rewound (an io.ReadSeeker) of known size up to
// SinglePutMax: hashed in a first pass, rewound and streamed, without a
// buffer, as is a body held in memory that tells its length (a
// *bytes.Reader, a *strings.Reader, see s3part.InMemory) however small. A larger body, or one of unknown size that turns out longer
// than one part, goes with a multipart upload whose
// CompleteMultipartUpload carries the precondition, so the object appears
// whole and only if the precondition holds at that moment. Put holds two
// parts (the one being sent and the next), or one body of up to the
// threshold, in memory. If size is not -1 and body's length differs,
// nothing is stored.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	info, _, err := b.put(ctx, key, body, size, opts, false)
	return info, err
}

// PutHashed is Put, and returns the body's SHA-256, which every request
// is signed with: the single PutObject's payload hash, or (for a
// multipart upload) a hash of the whole body computed beside the parts';
// and its CRCs, computed in the same pass. It implements
// driver.HashingPutter.
func (b *Backend) PutHashed(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, driver.Digest, error) {
	return b.put(ctx, key, body, size, opts, true)
}

func (b *Backend) put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions, hashWhole bool) (driver.ObjectInfo, driver.Digest, error) {
	if err := ctx.Err(); err != nil {
		return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, err)
	}
	if mem, ok := s3part.InMemory(body, size); ok && size <= b.singleMax {
		// Held in memory: sent as it is, hashed without a copy.
		var dg driver.Digest
		var err error
		if hashWhole {
			dg, err = s3part.DigestOf(mem)
		} else {
			dg.SHA256, err = s3part.Sum256(mem)
		}
		if err != nil {
			return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, fmt.Errorf("reading body: %w", err))
		}
		info, err := b.putSingle(ctx, key, mem, size, dg.SHA256, opts)
		return info, s3part.ReadWhole(size, dg, err), err
	}
	if rs, ok := body.(io.ReadSeeker); ok && size > b.threshold && size <= b.singleMax {
		return b.putStreamed(ctx, key, rs, size, opts, hashWhole)
	}
	p, err := s3part.Read(body, size, b.partSize, b.threshold)
	if err != nil {
		return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, err)
	}
	return p.Send(hashWhole,
		func(data []byte, sum [sha256.Size]byte) (driver.ObjectInfo, error) {
			return b.putSingle(ctx, key, bytes.NewReader(data), int64(len(data)), sum, opts)
		},
		func() (driver.ObjectInfo, int64, error) { return b.putMultipart(ctx, key, p, opts) })
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
	info, _, err := b.putMultipart(ctx, key, p, opts)
	return info, err
}

// putStreamed sends a body that can be rewound with one PutObject: it
// hashes it (and checks its length) in a first pass, rewinds it, and
// signs the request with that hash. Should the body change between the
// passes, the store refuses the request (the signature's payload hash no
// longer matches). With hashWhole the first pass also computes the
// body's CRCs.
func (b *Backend) putStreamed(ctx context.Context, key string, body io.ReadSeeker, size int64, opts driver.PutOptions, hashWhole bool) (driver.ObjectInfo, driver.Digest, error) {
	_, dg, err := s3part.HashSeekable(body, size, hashWhole)
	if err != nil {
		return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, fmt.Errorf("reading body: %w", err))
	}
	info, err := b.putSingle(ctx, key, body, size, dg.SHA256, opts)
	return info, s3part.ReadWhole(size, dg, err), err
}

// putSingle sends body, of size bytes whose SHA-256 is sum, with one
// PutObject signed with sum. body must be seekable: the SDK rewinds it
// for a retry.
func (b *Backend) putSingle(ctx context.Context, key string, body io.ReadSeeker, size int64, sum [sha256.Size]byte, opts driver.PutOptions) (driver.ObjectInfo, error) {
	in := &s3.PutObjectInput{
		Bucket:        aws.String(b.bucket),
		Key:           aws.String(b.objectKey(key)),
		Body:          body,
		ContentLength: aws.Int64(size),
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
	out, err := b.client.PutObject(ctx, in, checksumsWhenRequired, payloadHash(sum), expectContinue)
	if err != nil {
		return driver.ObjectInfo{}, b.failPut(key, err, opts.Mode)
	}
	return b.putInfo(key, size, out.ETag)
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
func (b *Backend) putMultipart(ctx context.Context, key string, p *s3part.Body, opts driver.PutOptions) (_ driver.ObjectInfo, total int64, err error) {
	ok := b.objectKey(key)
	up, err := b.client.CreateMultipartUpload(ctx, b.createMultipartInput(key, opts), checksumsWhenRequired)
	if err != nil {
		return driver.ObjectInfo{}, total, b.fail("put", key, err)
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
	total, err = p.Upload(func(n int, part []byte, sum [sha256.Size]byte) error {
		out, err := b.client.UploadPart(ctx, &s3.UploadPartInput{
			Bucket:        aws.String(b.bucket),
			Key:           aws.String(ok),
			UploadId:      uploadID,
			PartNumber:    aws.Int32(int32(n)),
			Body:          bytes.NewReader(part),
			ContentLength: aws.Int64(int64(len(part))),
		}, checksumsWhenRequired, payloadHash(sum), expectContinue)
		if err != nil {
			return err
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(int32(n))})
		return nil
	})
	if err != nil {
		return driver.ObjectInfo{}, total, b.fail("put", key, err)
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
		return driver.ObjectInfo{}, total, b.failPut(key, err, opts.Mode)
	}
	info, err := b.putInfo(key, total, out.ETag)
	return info, total, err
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
