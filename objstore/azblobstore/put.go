package azblobstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3part"
)

// Put writes the object if opts' precondition holds. A body of known size
// up to the multipart threshold, or of unknown size that fits in one
// block, is sent with one Put Blob. A larger body is staged in blocks
// (Put Block), two in memory at a time, and committed with Put Block
// List, which carries the precondition: the blob appears whole, and only
// if the precondition holds at that moment. If size is not -1 and body's
// length differs, nothing is stored.
//
// A body held in memory (a *bytes.Reader, a *strings.Reader, objstore's
// manifest writes: s3part.InMemory) up to the threshold is sent as it
// is, without a copy.
func (b *Backend) Put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	info, _, err := b.put(ctx, key, body, size, opts, false)
	return info, err
}

// PutHashed is Put that also returns the body's digest (size, SHA-256
// and CRCs), computed as the body is read for the upload, so that
// objstore need not wrap the body in a hashing reader, which would hide
// a body held in memory and make Put copy it. The digest is known when
// the whole body was read: after a successful put, and after one refused
// by its precondition. It implements driver.HashingPutter.
func (b *Backend) PutHashed(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions) (driver.ObjectInfo, driver.Digest, error) {
	return b.put(ctx, key, body, size, opts, true)
}

func (b *Backend) put(ctx context.Context, key string, body io.Reader, size int64, opts driver.PutOptions, hash bool) (driver.ObjectInfo, driver.Digest, error) {
	if err := ctx.Err(); err != nil {
		return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, err)
	}
	if mem, ok := s3part.InMemory(body, size); ok && size <= b.threshold {
		var dg driver.Digest
		if hash {
			var err error
			if dg, err = s3part.DigestOf(mem); err != nil {
				return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, fmt.Errorf("reading body: %w", err))
			}
		}
		info, err := b.putSingle(ctx, key, mem, size, opts)
		return info, s3part.ReadWhole(size, dg, err), err
	}
	p, err := s3part.Read(body, size, b.partSize, b.threshold)
	if err != nil {
		return driver.ObjectInfo{}, driver.Digest{}, b.fail("put", key, err)
	}
	if p.Single() {
		data := p.Data()
		var dg driver.Digest
		if hash {
			dg = driver.DigestOf(data)
		}
		info, err := b.putSingle(ctx, key, bytes.NewReader(data), int64(len(data)), opts)
		return info, s3part.ReadWhole(int64(len(data)), dg, err), err
	}
	if hash {
		p.HashWhole()
	}
	info, total, err := b.putStaged(ctx, key, p, opts)
	if !hash {
		return info, driver.Digest{}, err // Put: no digest to return
	}
	return info, s3part.ReadWhole(total, p.Digest(), err), err
}

// PutMultipart is Put with staged blocks and Put Block List whatever the
// body's size: a body that fits in one block is one block, however
// small. size must be known. It implements driver.MultipartPutter, with
// which the capability probe proves that the store honours the
// precondition on Put Block List.
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
	info, _, err := b.putStaged(ctx, key, p, opts)
	return info, err
}

// putSingle sends body, size bytes held in memory and at its start, with
// one Put Blob under opts' precondition.
func (b *Backend) putSingle(ctx context.Context, key string, body io.ReadSeeker, size int64, opts driver.PutOptions) (driver.ObjectInfo, error) {
	meta, err := encodeMetadata(opts.Metadata)
	if err != nil {
		return driver.ObjectInfo{}, b.fail("put", key, err)
	}
	out, err := b.client.NewBlockBlobClient(b.blobName(key)).Upload(ctx, streaming.NopCloser(body), &blockblob.UploadOptions{
		Metadata:         meta,
		HTTPHeaders:      headers(opts),
		AccessConditions: conditions(opts.Mode),
	})
	if err != nil {
		return driver.ObjectInfo{}, b.failPut(key, err, opts.Mode)
	}
	return b.putInfo(key, size, out.ETag)
}

// putStaged stages p's blocks, one at a time while the next is read, and
// commits them with Put Block List under opts' precondition. It returns
// the bytes it read of the body too.
//
// Block IDs start with a random upload id: Azure keeps one list of
// uncommitted blocks per blob, so two uploads to one key at once must
// never name the same block, or one could commit the other's bytes.
// Azure has no call to discard staged blocks: those of a failed upload
// stay uncommitted, invisible to Get and List, until the blob's next
// commit or for at most seven days.
func (b *Backend) putStaged(ctx context.Context, key string, p *s3part.Body, opts driver.PutOptions) (driver.ObjectInfo, int64, error) {
	meta, err := encodeMetadata(opts.Metadata)
	if err != nil {
		return driver.ObjectInfo{}, 0, b.fail("put", key, err)
	}
	var id [12]byte
	_, _ = rand.Read(id[:])
	upload := hex.EncodeToString(id[:])
	bb := b.client.NewBlockBlobClient(b.blobName(key))
	var ids []string
	total, err := p.Upload(func(n int, part []byte, _ [sha256.Size]byte) error {
		// Every ID of a blob has one length: 24 + 1 + 6 characters.
		blockID := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "%s-%06d", upload, n))
		if _, err := bb.StageBlock(ctx, blockID, streaming.NopCloser(bytes.NewReader(part)), nil); err != nil {
			return err
		}
		ids = append(ids, blockID)
		return nil
	})
	if err != nil {
		return driver.ObjectInfo{}, total, b.fail("put", key, err)
	}
	out, err := bb.CommitBlockList(ctx, ids, &blockblob.CommitBlockListOptions{
		Metadata:         meta,
		HTTPHeaders:      headers(opts),
		AccessConditions: conditions(opts.Mode),
	})
	if err != nil {
		return driver.ObjectInfo{}, total, b.failPut(key, err, opts.Mode)
	}
	info, err := b.putInfo(key, total, out.ETag)
	return info, total, err
}

func (b *Backend) putInfo(key string, size int64, etag *azcore.ETag) (driver.ObjectInfo, error) {
	if etag == nil || *etag == "" {
		return driver.ObjectInfo{}, fmt.Errorf("azblobstore: put %q: the store returned no ETag, so conditional writes cannot work", key)
	}
	return driver.ObjectInfo{Key: key, Size: size, ETag: string(*etag)}, nil
}

func headers(opts driver.PutOptions) *blob.HTTPHeaders {
	if opts.ContentType == "" {
		return nil
	}
	return &blob.HTTPHeaders{BlobContentType: &opts.ContentType}
}

// conditions returns the access conditions of mode: If-None-Match: * for
// Create, If-Match for Update, none for Overwrite.
func conditions(mode driver.PutMode) *blob.AccessConditions {
	var etag azcore.ETag
	mac := &blob.ModifiedAccessConditions{}
	switch m := mode.(type) {
	case driver.Create:
		etag = azcore.ETagAny
		mac.IfNoneMatch = &etag
	case driver.Update:
		etag = azcore.ETag(m.ETag)
		mac.IfMatch = &etag
	default:
		return nil
	}
	return &blob.AccessConditions{ModifiedAccessConditions: mac}
}

// MultipartCommitName is "Put Block List", the request that commits
// staged blocks under the put's precondition. It implements
// driver.MultipartNamer, for the capability probe's messages.
func (b *Backend) MultipartCommitName() string { return "Put Block List" }

// Conditions names Azure's conditional headers, for the capability
// probe's messages (driver.ConditionNamer).
func (b *Backend) Conditions() driver.Conditions {
	return driver.Conditions{
		Create: "If-None-Match: *",
		Update: "If-Match",
		Needed: "a blob service that honours If-None-Match: * and If-Match on Put Blob and Put Block List",
	}
}
