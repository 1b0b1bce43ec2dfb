package bench

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/minio/minio-go/v7"
)

// The floor of a commit that publishes receipts HEADs each receipt's
// version object, as the commit's check does (objstore's
// checkReceipt), through the plain side's client.

// headCall names one plain HEAD on p's client, for a floor's
// description.
func headCall(p plain) string {
	switch p.(type) {
	case *s3Plain, *minioPlain:
		return "HeadObject"
	case *gcsPlain:
		return "GCS object attributes read"
	case *azblobPlain:
		return "Get Blob Properties"
	}
	return "Head"
}

// head reads key's metadata with one plain HEAD on p's client and
// returns its size.
func head(ctx context.Context, p plain, key string) (int64, error) {
	switch p := p.(type) {
	case *s3Plain:
		out, err := p.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(p.bucket), Key: aws.String(p.prefix + key)}, whenRequired)
		if err != nil {
			return 0, fmt.Errorf("bench: plain HeadObject %q: %w", key, err)
		}
		return aws.ToInt64(out.ContentLength), nil
	case *minioPlain:
		info, err := p.c.StatObject(ctx, p.bucket, p.prefix+key, minio.StatObjectOptions{})
		if err != nil {
			return 0, fmt.Errorf("bench: plain HeadObject %q: %w", key, err)
		}
		return info.Size, nil
	case *gcsPlain:
		attrs, err := p.object(key).Attrs(ctx)
		if err != nil {
			return 0, fmt.Errorf("bench: plain GCS attributes of %q: %w", key, err)
		}
		return attrs.Size, nil
	case *azblobPlain:
		out, err := p.c.NewBlobClient(p.prefix+key).GetProperties(ctx, nil)
		if err != nil {
			return 0, fmt.Errorf("bench: plain Get Blob Properties %q: %w", key, err)
		}
		return aws.ToInt64(out.ContentLength), nil
	case backendPlain:
		info, err := p.b.Head(ctx, key)
		if err != nil {
			return 0, fmt.Errorf("bench: plain Head %q: %w", key, err)
		}
		return info.Size, nil
	}
	return 0, fmt.Errorf("bench: no plain HEAD for a %T", p)
}
