package s3store

import (
	"bytes"
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/objstore/internal/s3test"
	"github.com/fencedstore/fence/objstore/objstoretest"
)

// BenchmarkSmallPutCost compares the client's CPU and allocations of a
// warm fenced put of 1 KiB through this backend with aws-sdk-go-v2's own
// PutObject of the same bytes through the same *s3.Client, interleaved
// (objstoretest.SmallPutCost). Run it with
//
//	go test -run '^$' -bench SmallPutCost ./objstore/s3store/
func BenchmarkSmallPutCost(b *testing.B) {
	s3test.EachServer(b, "s3store", func(b *testing.B, srv s3test.Server) {
		bk := newBucket(b, "", testOptions(srv))
		objstoretest.SmallPutCost(b, bk, func(ctx context.Context, key string, data []byte) error {
			_, err := bk.client.PutObject(ctx, &s3.PutObjectInput{
				Bucket:        aws.String(bk.bucket),
				Key:           aws.String(key),
				Body:          bytes.NewReader(data),
				ContentLength: aws.Int64(int64(len(data))),
			})
			return err
		})
	})
}

// BenchmarkCommitInlineCost compares a warm fenced commit of 100 values
// of 1 KiB, all kept in the manifest, with its floor, aws-sdk-go-v2's own
// conditional PutObject of the manifest's bytes through the same
// *s3.Client (objstoretest.CommitInlineCost). Run it with
//
//	go test -run '^$' -bench CommitInlineCost ./objstore/s3store/
func BenchmarkCommitInlineCost(b *testing.B) {
	s3test.EachServer(b, "s3store", func(b *testing.B, srv s3test.Server) {
		bk := newBucket(b, "", testOptions(srv))
		objstoretest.CommitInlineCost(b, bk, func(ctx context.Context, key string, data []byte, etag string) (string, error) {
			in := &s3.PutObjectInput{
				Bucket:        aws.String(bk.bucket),
				Key:           aws.String(key),
				Body:          bytes.NewReader(data),
				ContentLength: aws.Int64(int64(len(data))),
			}
			if etag == "" {
				in.IfNoneMatch = aws.String("*")
			} else {
				in.IfMatch = aws.String(etag)
			}
			out, err := bk.client.PutObject(ctx, in, checksumsWhenRequired)
			if err != nil {
				return "", err
			}
			return aws.ToString(out.ETag), nil
		})
	})
}
