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

// Put writes the object if opts' precondition holds. A body of known
// size that can be read at any offset (an io.ReaderAt, such as a
// *bytes.Reader or an *os.File, that is held in memory or can tell its
// offset with Seek) of two parts or more, or above SinglePutMax, goes in
// a multipart upload whose parts are sent PartConcurrency at a time (see
// putAt). These other bodies are sent with one PutObject carrying
// If-Match or If-None-Match: *, signed with the body's SHA-256, computed
// before the request, so that minio-go does not hash the body again as
// it sends it:
//
//   - a body held in memory that tells its length (see s3part.InMemory)
//     of known size up to SinglePutMax or the part size, whichever is
//     larger, sent as it is;
//   - a body that can be rewound (an io.ReadSeeker) of known size above
//     the part size and up to SinglePutMax, hashed in a first pass,
//     rewound and streamed, without a buffer;
//   - any other body of known size up to the part size, or of unknown
//     size (-1) that ends within one part, read into a buffer first.
//
// Any other body goes in a multipart upload whose CompleteMultipartUpload
// carries the precondition, so the object appears whole and only if the
// precondition holds at that moment (see the package documentation for
// why this does not use minio.Client's PutObject). Put holds at most two
// parts, or one body of up to the part size, in memory; PartConcurrency+1
// parts of a body sent in concurrent parts that it does not hold in
// memory. If size is not -1 and body's length differs, nothing is stored.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	info, _, err := b.put(ctx, key, body, size, opts, false)
	return info, err
}

// PutHashed is Put, and returns the body's length, SHA-256 and CRCs,
// computed in one pass: for one PutObject, the pass whose SHA-256 signs
// the request; for a multipart upload, a pass over the whole body beside
// the parts' own hashes. It implements driver.HashingPutter.
func (b *Backend) PutHashed(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, driver.Digest, error) {
	return b.put(ctx, key, body, size, opts, true)
}

func (b *Backend) put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions, hashWhole bool) (driver.ObjectInfo, driver.Digest, error) {
	if err := ctx.Err(); err != nil {
		return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, err)
	}
	if b.partConc > 1 && size > b.concurrentMin() {
		if info, dg, ok, err := b.putAt(ctx, key, body, size, opts, hashWhole); ok {
			return info, dg, err
		}
	}
	// The part size is also the multipart threshold.
	if mem, ok := s3part.InMemory(body, size); ok && size <= max(b.singleMax, b.partSize) {
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
		info, err := b.putHeld(ctx, key, mem, size, dg.SHA256, opts)
		return info, s3part.ReadWhole(size, dg, err), err
	}
	if rs, ok := body.(io.ReadSeeker); ok && size > b.partSize && size <= b.singleMax && !b.hashRefused.Load() {
		return b.putStreamed(ctx, key, rs, size, opts, hashWhole)
	}
	return b.putRead(ctx, key, body, size, opts, hashWhole)
}

// putRead puts body through s3part: read whole into a buffer and sent
// with one PutObject, or uploaded in parts.
func (b *Backend) putRead(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions, hashWhole bool) (driver.ObjectInfo, driver.Digest, error) {
	p, err := s3part.Read(body, size, b.partSize, b.partSize)
	if err != nil {
		return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, err)
	}
	return p.Send(hashWhole,
		func(data []byte, sum [sha256.Size]byte) (driver.ObjectInfo, error) {
			return b.putHeld(ctx, key, bytes.NewReader(data), int64(len(data)), sum, opts)
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

// putHeld sends body, held in memory, whose SHA-256 is sum, with one
// PutObject signed with sum; or, from a client that refuses a given hash
// (see putSingle), signed as minio-go signs it itself: the bytes sent are
// the bytes hashed either way.
func (b *Backend) putHeld(ctx context.Context, key string, body io.ReadSeeker, size int64, sum [sha256.Size]byte, opts driver.PutOptions) (driver.ObjectInfo, error) {
	info, err := b.putSingle(ctx, key, body, size, &sum, opts)
	if errors.Is(err, errHashRefused) {
		info, err = b.putSingle(ctx, key, body, size, nil, opts)
	}
	return info, err
}

// putSingle sends body, of size bytes from where minio-go's
// Seek(0, io.SeekStart) puts it, with one PutObject: Core.PutObject is
// exactly one PUT (minio-go retries it whole, rewinding the body). With
// sum, the body's SHA-256, the request is signed with it.
//
// minio-go signs a PutObject over plain HTTP with its streaming
// signature, which hashes the body chunk by chunk as it sends it, unless
// asked not to (DisableContentSha256); it then signs the payload hash it
// is given. A client created with minio.Options.TrailingHeaders refuses
// that pairing (it would add a checksum trailer, which cannot go with a
// payload hash) before it sends anything: putSingle then returns
// errHashRefused, and the backend skips the streamed path from then on.
func (b *Backend) putSingle(ctx context.Context, key string, body io.ReadSeeker, size int64, sum *[sha256.Size]byte, opts driver.PutOptions) (driver.ObjectInfo, error) {
	po := b.putOptions(opts)
	po.ServerSideEncryption = b.sse
	var sha string
	if sum != nil {
		sha = hex.EncodeToString(sum[:])
		po.DisableContentSha256 = true
	}
	ui, err := b.core.PutObject(ctx, b.bucket, b.objectKey(key), body, size, "", sha, po)
	if err != nil && sum != nil && err.Error() == minioHashWithTrailer {
		b.hashRefused.Store(true)
		return driver.ObjectInfo{}, errHashRefused
	}
	if err != nil {
		return driver.ObjectInfo{}, b.failPut(key, err, opts.Mode)
	}
	return putInfo(key, size, ui.ETag)
}

// minioHashWithTrailer is minio-go's error (v7.4.1, api.go newRequest)
// for a request given a payload hash by a client that adds a checksum
// trailer. TestTrailingHeadersClient fails if it changes.
const minioHashWithTrailer = "internal error: contentSHA256Hex with trailer not supported"

// errHashRefused: the client refuses a given payload hash (see
// putSingle). It never leaves the package: putHeld and putStreamed send
// the body another way.
var errHashRefused = errors.New("miniostore: the minio-go client refuses a given payload hash")

func putInfo(key string, size int64, etag string) (driver.ObjectInfo, error) {
	if etag == "" {
		return driver.ObjectInfo{}, fmt.Errorf("miniostore: put %q: the store returned no ETag, so conditional writes cannot work", key)
	}
	return driver.ObjectInfo{Key: key, Size: size, ETag: etag}, nil
}

// putMultipart uploads p's parts, one at a time, and completes the upload
// with opts' precondition. On any failure it aborts the upload, with a
// context that survives the caller's.
func (b *Backend) putMultipart(ctx context.Context, key string, p *s3part.Body, opts driver.PutOptions) (_ driver.ObjectInfo, total int64, err error) {
	ok := b.objectKey(key)
	// The precondition goes on CompleteMultipartUpload only: that is the
	// moment the object appears.
	create := minio.PutObjectOptions{ContentType: opts.ContentType, ServerSideEncryption: b.sse, UserMetadata: opts.Metadata}
	uploadID, err := b.core.NewMultipartUpload(ctx, b.bucket, ok, create)
	if err != nil {
		return driver.ObjectInfo{}, total, b.fail("put", key, err)
	}
	defer s3part.AbortOnError(ctx, &err, uploadID, func(actx context.Context) error {
		return b.core.AbortMultipartUpload(actx, b.bucket, ok, uploadID)
	})

	var parts []minio.CompletePart
	total, err = p.Upload(func(n int, part []byte, sum [sha256.Size]byte) error {
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
		return driver.ObjectInfo{}, total, b.fail("put", key, err)
	}
	ui, err := b.core.CompleteMultipartUpload(ctx, b.bucket, ok, uploadID, parts, b.putOptions(driver.PutOptions{Mode: opts.Mode}))
	if err != nil {
		return driver.ObjectInfo{}, total, b.failPut(key, err, opts.Mode)
	}
	info, err := putInfo(key, total, ui.ETag)
	return info, total, err
}
