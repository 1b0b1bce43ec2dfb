package azblobstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/fencedstore/fence/objstore/driver"
)

var _ driver.PartUploader = (*Backend)(nil)

// An upload in parts (driver.PartUploader) is a set of staged blocks of
// the blob, committed by CompleteParts with one Put Block List under
// the precondition. Azure has no upload object: CreateParts makes only a
// random upload id, with which every block ID of the upload starts.
//
// Put Block takes a body it can rewind, so a part is staged in blocks of
// at most Options.PartSize bytes, one in memory at a time: the block ID
// of block k of an upload of part n is "<upload>-<n>-<attempt>-<k>",
// attempt being random for each upload of the part, and the part's ETag
// is "<attempt>-<blocks>". CompleteParts commits exactly the blocks of
// the ETags it is given, so a part uploaded again is replaced, and a
// failed upload of a part never puts other bytes under an earlier ETag;
// Azure drops the blocks not committed.

// CreateParts returns a new upload id. Content type and metadata are
// kept in the backend, for CompleteParts.
func (b *Backend) CreateParts(ctx context.Context, key string, opts driver.PutOptions) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", b.fail("create parts", key, err)
	}
	if _, err := encodeMetadata(opts.Metadata); err != nil {
		return "", b.fail("create parts", key, err)
	}
	var r [12]byte
	_, _ = rand.Read(r[:])
	id := hex.EncodeToString(r[:])
	if opts.ContentType != "" || len(opts.Metadata) > 0 {
		b.partOpts.Store(id, driver.PutOptions{ContentType: opts.ContentType, Metadata: opts.Metadata})
	}
	return id, nil
}

// blockID returns the ID of block k of the upload of part n whose
// attempt is attempt. Every ID of one upload has one length, as Azure
// requires of the blocks of one blob.
func blockID(upload string, n int, attempt string, k int) string {
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "%s-%05d-%s-%05d", upload, n, attempt, k))
}

// UploadPart stages body, read a block at a time, as part n.
func (b *Backend) UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64) (string, error) {
	if err := driver.CheckPart(n, size); err != nil {
		return "", b.fail("upload part", key, err)
	}
	if len(uploadID) != 24 {
		return "", b.fail("upload part", key, fmt.Errorf("%q is not an upload id of this store: %w", uploadID, driver.ErrNotFound))
	}
	var r [8]byte
	_, _ = rand.Read(r[:])
	attempt := hex.EncodeToString(r[:])
	bb := b.client.NewBlockBlobClient(b.blobName(key))
	buf := make([]byte, min(size, b.partSize))
	body = driver.ExactReader(body, size)
	blocks := 0
	for left := size; left > 0; blocks++ {
		chunk := buf[:min(left, int64(len(buf)))]
		if _, err := io.ReadFull(body, chunk); err != nil {
			return "", b.fail("upload part", key, fmt.Errorf("part %d: reading body: %w", n, err))
		}
		left -= int64(len(chunk))
		if _, err := bb.StageBlock(ctx, blockID(uploadID, n, attempt, blocks), streaming.NopCloser(bytes.NewReader(chunk)), nil); err != nil {
			return "", b.fail("upload part", key, fmt.Errorf("part %d: %w", n, err))
		}
	}
	if _, err := body.Read(make([]byte, 1)); err != io.EOF {
		if err == nil {
			err = errors.New("body is longer than its declared size")
		}
		return "", b.fail("upload part", key, fmt.Errorf("part %d: reading body: %w", n, err))
	}
	return attempt + "-" + strconv.Itoa(blocks), nil
}

// CompleteParts commits the blocks of the listed parts with Put Block
// List under mode's precondition. Azure has no minimum part size.
func (b *Backend) CompleteParts(ctx context.Context, key, uploadID string, parts []driver.CompletedPart, mode driver.PutMode) (driver.ObjectInfo, error) {
	if err := driver.CheckCompleted(parts); err != nil {
		return driver.ObjectInfo{}, b.fail("complete parts", key, err)
	}
	var ids []string
	for _, p := range parts {
		attempt, count, ok := strings.Cut(p.ETag, "-")
		blocks, err := strconv.Atoi(count)
		if !ok || err != nil || len(attempt) != 16 || blocks < 0 {
			return driver.ObjectInfo{}, b.fail("complete parts", key, fmt.Errorf("part %d: %q is not an ETag of this store: %w", p.N, p.ETag, driver.ErrPermanent))
		}
		for k := range blocks {
			ids = append(ids, blockID(uploadID, p.N, attempt, k))
		}
	}
	var opts driver.PutOptions
	if o, ok := b.partOpts.Load(uploadID); ok {
		opts = o.(driver.PutOptions)
	}
	meta, err := encodeMetadata(opts.Metadata)
	if err != nil {
		return driver.ObjectInfo{}, b.fail("complete parts", key, err)
	}
	_, err = b.client.NewBlockBlobClient(b.blobName(key)).CommitBlockList(ctx, ids, &blockblob.CommitBlockListOptions{
		Metadata:         meta,
		HTTPHeaders:      headers(opts),
		AccessConditions: conditions(mode),
	})
	if err != nil {
		return driver.ObjectInfo{}, b.failPut(key, err, mode)
	}
	b.partOpts.Delete(uploadID)
	// Put Block List does not report the size.
	info, err := b.Head(ctx, key)
	if err != nil {
		return driver.ObjectInfo{}, fmt.Errorf("azblobstore: complete parts %q: the blocks were committed, but reading the size failed: %w", key, err)
	}
	return info, nil
}

// AbortParts discards the upload's blocks. Azure has no call for that:
// when the blob does not exist (nothing was committed to it), AbortParts
// commits an empty block list, which drops every uncommitted block, and
// deletes the empty blob it made. It must only be called for a key that
// nothing else writes meanwhile (the Store's version objects, each
// written by one upload): a blob committed between its check and its
// commit would be lost.
func (b *Backend) AbortParts(ctx context.Context, key, uploadID string) error {
	b.partOpts.Delete(uploadID)
	if _, err := b.Head(ctx, key); !errors.Is(err, driver.ErrNotFound) {
		return err // nil: the blob exists, and its blocks were committed or dropped
	}
	if _, err := b.client.NewBlockBlobClient(b.blobName(key)).CommitBlockList(ctx, nil, nil); err != nil {
		return b.fail("abort parts", key, err)
	}
	return b.Delete(ctx, key)
}
