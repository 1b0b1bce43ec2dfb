package faulty

import (
	"context"
	"io"

	"github.com/fencedstore/fence/objstore/driver"
)

var _ driver.PartUploader = (*Backend)(nil)

// parts returns the wrapped backend as a driver.PartUploader, or
// driver.ErrUnsupported.
func (b *Backend) parts() (driver.PartUploader, error) {
	pu, ok := b.inner.(driver.PartUploader)
	if !ok {
		return nil, driver.ErrUnsupported
	}
	return pu, nil
}

// CreateParts is passed on without a fault when the wrapped backend is
// a driver.PartUploader; otherwise it fails with driver.ErrUnsupported,
// doing nothing, and the Store stages the parts as objects of their
// own.
func (b *Backend) CreateParts(ctx context.Context, key string, opts driver.PutOptions) (string, error) {
	pu, err := b.parts()
	if err != nil {
		return "", err
	}
	return pu.CreateParts(ctx, key, opts)
}

// UploadPart passes the call on as a Put (OpPut) of key, with its
// fault.
func (b *Backend) UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64) (string, error) {
	pu, err := b.parts()
	if err != nil {
		return "", err
	}
	c := Call{Op: OpPut, Key: key}
	f := b.fault(ctx, c)
	if err := f.before(ctx); err != nil {
		return "", wrap(c, err)
	}
	etag, err := pu.UploadPart(ctx, key, uploadID, n, body, size)
	if err != nil {
		return "", err
	}
	if err := f.after(); err != nil {
		return "", wrap(c, err)
	}
	return etag, nil
}

// CompleteParts passes the call on as a Put (OpPut) of key in mode,
// with its fault.
func (b *Backend) CompleteParts(ctx context.Context, key, uploadID string, parts []driver.CompletedPart, mode driver.PutMode) (driver.ObjectInfo, error) {
	pu, err := b.parts()
	if err != nil {
		return driver.ObjectInfo{}, err
	}
	c := Call{Op: OpPut, Key: key, Opts: driver.PutOptions{Mode: mode}}
	f := b.fault(ctx, c)
	if err := f.before(ctx); err != nil {
		return driver.ObjectInfo{}, wrap(c, err)
	}
	info, err := pu.CompleteParts(ctx, key, uploadID, parts, mode)
	if err != nil {
		return info, err
	}
	if err := f.after(); err != nil {
		return driver.ObjectInfo{}, wrap(c, err)
	}
	return info, nil
}

// AbortParts passes the call on as a Delete (OpDelete) of key, with its
// fault.
func (b *Backend) AbortParts(ctx context.Context, key, uploadID string) error {
	pu, err := b.parts()
	if err != nil {
		return err
	}
	c := Call{Op: OpDelete, Key: key}
	f := b.fault(ctx, c)
	if err := f.before(ctx); err != nil {
		return wrap(c, err)
	}
	if err := pu.AbortParts(ctx, key, uploadID); err != nil {
		return err
	}
	if err := f.after(); err != nil {
		return wrap(c, err)
	}
	return nil
}
