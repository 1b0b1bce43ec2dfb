package miniostore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"
	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3part"
)

// A partSource hands out the parts of a body that can be read at any
// offset, for putConcurrent: memParts for a body held in memory,
// bufParts for any other.
type partSource interface {
	// reserve is called for each part in order, before the part's
	// goroutine starts; it may wait for memory to hold the part, until
	// ctx ends.
	reserve(ctx context.Context, n int, size int64) error
	// part returns part n (from 1), size bytes at offset off of the
	// body, as a reader the request can rewind for a retry, and its
	// SHA-256. It is called on the part's goroutine, so parts are read
	// and hashed in parallel.
	part(n int, off, size int64) (io.ReadSeeker, [sha256.Size]byte, error)
	// sent: the request of part n is over, whether it succeeded or not.
	sent(n int)
	// digest returns the digest of the whole body as its parts were
	// sent, once every part has been read; or ctx's error if it ends
	// first. It runs on a goroutine of its own, beside the parts.
	digest(ctx context.Context) (driver.Digest, error)
}

// concurrentParts returns the part size and the number of parts of a
// multipart upload of size bytes: the backend's part size, grown so that
// the body fits in s3part.MaxParts parts.
func (b *Backend) concurrentParts(size int64) (partSize int64, n int) {
	partSize = max(b.partSize, (size+s3part.MaxParts-1)/s3part.MaxParts)
	return partSize, int((size + partSize - 1) / partSize)
}

// putConcurrent puts size bytes from src with a multipart upload whose
// parts go b.partConc at a time, each signed with its own SHA-256, and
// whose CompleteMultipartUpload carries opts' precondition (see the
// package documentation). With hashWhole it also returns the digest of
// the whole body, as src computed it from the bytes the parts were sent
// with. If any part fails, or the caller's context ends, the upload is
// aborted with a context detached from the caller's, and putConcurrent
// returns once no part is being read or sent.
func (b *Backend) putConcurrent(ctx context.Context, key string, src partSource, size int64, opts driver.PutOptions, hashWhole bool) (_ driver.ObjectInfo, _ driver.Digest, err error) {
	ok := b.objectKey(key)
	create := minio.PutObjectOptions{ContentType: opts.ContentType, ServerSideEncryption: b.sse, UserMetadata: opts.Metadata}
	uploadID, err := b.core.NewMultipartUpload(ctx, b.bucket, ok, create)
	if err != nil {
		return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, err)
	}
	defer s3part.AbortOnError(ctx, &err, uploadID, func(actx context.Context) error {
		return b.core.AbortMultipartUpload(actx, b.bucket, ok, uploadID)
	})

	partSize, n := b.concurrentParts(size)
	parts := make([]minio.CompletePart, n)
	g, gctx := errgroup.WithContext(ctx)
	type digested struct {
		dg  driver.Digest
		err error
	}
	whole := make(chan digested, 1)
	// The digest has a context of its own: gctx ends when g.Wait returns,
	// perhaps before the digest has taken in the last part.
	dctx, dcancel := context.WithCancel(ctx)
	defer dcancel()
	if hashWhole {
		go func() {
			dg, err := src.digest(dctx)
			whole <- digested{dg, err}
		}()
	}
	g.SetLimit(b.partConc)
	var stopped error // the caller's context ended between parts
	for i := range n {
		off := int64(i) * partSize
		psize := min(partSize, size-off)
		if err := gctx.Err(); err != nil {
			stopped = err // a part failed, or the caller gave up
			break
		}
		if err := src.reserve(gctx, i+1, psize); err != nil {
			stopped = err
			break
		}
		g.Go(func() error {
			defer src.sent(i + 1)
			body, sum, err := src.part(i+1, off, psize)
			if err != nil {
				return fmt.Errorf("reading body: %w", err)
			}
			pi, err := b.core.PutObjectPart(gctx, b.bucket, ok, uploadID, i+1, body, psize, minio.PutObjectPartOptions{
				Sha256Hex:            hex.EncodeToString(sum[:]),
				DisableContentSha256: true,
			})
			if err != nil {
				return fmt.Errorf("part %d: %w", i+1, err)
			}
			parts[i] = minio.CompletePart{PartNumber: i + 1, ETag: pi.ETag}
			return nil
		})
	}
	err = g.Wait()
	if err == nil {
		err = stopped
	}
	var dg driver.Digest
	if hashWhole {
		if err != nil {
			dcancel() // a part is missing: the digest would wait for it
		}
		d := <-whole
		if err == nil {
			dg, err = d.dg, d.err
		}
	}
	if err != nil {
		return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, err)
	}
	ui, err := b.core.CompleteMultipartUpload(ctx, b.bucket, ok, uploadID, parts, b.putOptions(driver.PutOptions{Mode: opts.Mode}))
	if err != nil {
		err = b.failPut(key, err, opts.Mode)
		return driver.ObjectInfo{}, s3part.ReadWhole(size, dg, err), err
	}
	info, err := putInfo(key, size, ui.ETag)
	return info, s3part.ReadWhole(size, dg, err), err
}

// concurrentMin is the largest body that putAt leaves to Put's other
// paths: one PutObject, up to SinglePutMax, of a body of less than two
// whole parts, which MinIO took as fast as two concurrent parts or
// faster (see the package documentation); a body of two whole parts or
// more, or above SinglePutMax, goes in concurrent parts.
func (b *Backend) concurrentMin() int64 {
	return max(b.partSize, min(b.singleMax, 2*b.partSize-1))
}
