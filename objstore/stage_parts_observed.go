package objstore

import (
	"context"
	"io"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
)

// The observed backend keeps driver.PartUploader: CreateParts fails with
// driver.ErrUnsupported, doing nothing, when the backend it reports on
// is not one, and StageParts then stages the parts as objects of their
// own. Its calls are reported as puts ("put"), and an abort as a
// delete.

func (b observed) parts() (driver.PartUploader, error) {
	pu, ok := b.inner.(driver.PartUploader)
	if !ok {
		return nil, driver.ErrUnsupported
	}
	return pu, nil
}

func (b observed) CreateParts(ctx context.Context, key string, opts driver.PutOptions) (string, error) {
	pu, err := b.parts()
	if err != nil {
		return "", err
	}
	start := time.Now()
	id, err := pu.CreateParts(ctx, key, opts)
	b.call(ctx, "put", start, err)
	return id, err
}

func (b observed) UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64) (string, error) {
	pu, err := b.parts()
	if err != nil {
		return "", err
	}
	start := time.Now()
	etag, err := pu.UploadPart(ctx, key, uploadID, n, body, size)
	b.call(ctx, "put", start, err)
	return etag, err
}

func (b observed) CompleteParts(ctx context.Context, key, uploadID string, parts []driver.CompletedPart, mode driver.PutMode) (driver.ObjectInfo, error) {
	pu, err := b.parts()
	if err != nil {
		return driver.ObjectInfo{}, err
	}
	start := time.Now()
	info, err := pu.CompleteParts(ctx, key, uploadID, parts, mode)
	b.call(ctx, "put", start, err)
	return info, err
}

func (b observed) AbortParts(ctx context.Context, key, uploadID string) error {
	pu, err := b.parts()
	if err != nil {
		return err
	}
	start := time.Now()
	err = pu.AbortParts(ctx, key, uploadID)
	b.call(ctx, "delete", start, err)
	return err
}
