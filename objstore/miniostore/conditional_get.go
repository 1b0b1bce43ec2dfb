package miniostore

import (
	"context"
	"io"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore"
)

var _ objstore.ConditionalGetter = (*Backend)(nil)

// GetIfNoneMatch is Get with If-None-Match: an unchanged object fails with
// objstore.ErrNotModified (304) and costs no transfer.
func (b *Backend) GetIfNoneMatch(ctx context.Context, key, etag string) (io.ReadCloser, objstore.ObjectInfo, error) {
	if b.err != nil {
		return nil, objstore.ObjectInfo{}, b.fail("get", key, b.err)
	}
	var opts minio.GetObjectOptions
	if err := opts.SetMatchETagExcept(etag); err != nil {
		return nil, objstore.ObjectInfo{}, b.fail("get", key, err)
	}
	rc, oi, _, err := b.core.GetObject(ctx, b.bucket, b.objectKey(key), opts)
	if err != nil {
		return nil, objstore.ObjectInfo{}, b.fail("get", key, err)
	}
	return rc, b.info(key, oi), nil
}
