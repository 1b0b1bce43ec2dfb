package s3store

import (
	"context"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore"
)

var _ objstore.ConditionalGetter = (*Backend)(nil)

// GetIfNoneMatch is Get with If-None-Match: an unchanged object fails with
// objstore.ErrNotModified (304) and costs no transfer.
func (b *Backend) GetIfNoneMatch(ctx context.Context, key, etag string) (io.ReadCloser, objstore.ObjectInfo, error) {
	if b.err != nil {
		return nil, objstore.ObjectInfo{}, b.fail("get", key, b.err)
	}
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket:      aws.String(b.bucket),
		Key:         aws.String(b.objectKey(key)),
		IfNoneMatch: aws.String(etag),
	}, checksumsWhenRequired)
	if err != nil {
		return nil, objstore.ObjectInfo{}, b.fail("get", key, err)
	}
	info := objstore.ObjectInfo{
		Key:      key,
		Size:     aws.ToInt64(out.ContentLength),
		ETag:     aws.ToString(out.ETag),
		Modified: aws.ToTime(out.LastModified),
	}
	return out.Body, info, nil
}
