package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/azblobstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/gcsstore"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
)

// plain is the baseline: the SDK calls a user would make without fence,
// on the same client, bucket and prefix as the backend. Keys are relative
// to the backend's prefix, as the backend's own are.
type plain interface {
	// describe names the calls, for the report.
	describe() string
	// putCall and getCall name one put and one get, for the rows'
	// baselines: "PutObject", "Put Blob".
	putCall() string
	getCall() string
	// condition says what a conditional put carries when it replaces an
	// object: "If-Match on the last ETag".
	condition() string
	// put writes data to key unconditionally: one PutObject.
	put(ctx context.Context, key string, data []byte) error
	// putIfMatch writes data to key if its ETag is etag, or if it does
	// not exist when etag is "", and returns the new ETag: one
	// conditional PutObject.
	putIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error)
	// get reads key to the end and returns its length: one GetObject.
	get(ctx context.Context, key string) (int64, error)
	// abortUploads aborts unfinished multipart uploads under prefix and
	// returns how many it aborted.
	abortUploads(ctx context.Context, prefix string) (int, error)
}

// plainFor returns the baseline for b: the same SDK client for S3, MinIO,
// GCS and Azure Blob backends, the backend's own unconditional calls
// otherwise.
func plainFor(b driver.Backend) plain {
	switch b := b.(type) {
	case *s3store.Backend:
		return &s3Plain{c: b.Client(), bucket: b.Bucket(), prefix: b.Prefix()}
	case *miniostore.Backend:
		return &minioPlain{c: b.Client(), bucket: b.Bucket(), prefix: b.Prefix()}
	case *gcsstore.Backend:
		return &gcsPlain{c: b.Client(), bucket: b.Bucket(), prefix: b.Prefix(), chunk: b.UploadChunk}
	case *azblobstore.Backend:
		return &azblobPlain{c: b.Client(), prefix: b.Prefix()}
	}
	return backendPlain{b}
}

// s3Plain calls aws-sdk-go-v2 directly.
type s3Plain struct {
	c      *s3.Client
	bucket string
	prefix string
}

// whenRequired asks for checksums only where an operation requires them,
// as s3store does on every call, so that the baseline differs from the
// backend only by what fence adds.
func whenRequired(o *s3.Options) {
	o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
}

func (p *s3Plain) describe() string {
	return "aws-sdk-go-v2 PutObject / GetObject on the backend's own *s3.Client"
}

func (p *s3Plain) putCall() string   { return "PutObject" }
func (p *s3Plain) getCall() string   { return "GetObject" }
func (p *s3Plain) condition() string { return "If-Match on the last ETag" }

func (p *s3Plain) put(ctx context.Context, key string, data []byte) error {
	_, err := p.putIfMatch(ctx, key, data, "-")
	return err
}

func (p *s3Plain) putIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	in := &s3.PutObjectInput{
		Bucket:        aws.String(p.bucket),
		Key:           aws.String(p.prefix + key),
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
	}
	switch etag {
	case "-": // unconditional
	case "":
		in.IfNoneMatch = aws.String("*")
	default:
		in.IfMatch = aws.String(etag)
	}
	out, err := p.c.PutObject(ctx, in, whenRequired)
	if err != nil {
		return "", fmt.Errorf("bench: plain PutObject %q: %w", key, err)
	}
	return aws.ToString(out.ETag), nil
}

func (p *s3Plain) get(ctx context.Context, key string) (int64, error) {
	out, err := p.c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(p.bucket), Key: aws.String(p.prefix + key)}, whenRequired)
	if err != nil {
		return 0, fmt.Errorf("bench: plain GetObject %q: %w", key, err)
	}
	defer out.Body.Close()
	n, err := io.Copy(io.Discard, out.Body)
	if err != nil {
		return n, fmt.Errorf("bench: plain GetObject %q: %w", key, err)
	}
	return n, nil
}

func (p *s3Plain) abortUploads(ctx context.Context, prefix string) (int, error) {
	out, err := p.c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(p.bucket), Prefix: aws.String(p.prefix + prefix)}, whenRequired)
	if err != nil {
		return 0, fmt.Errorf("bench: list multipart uploads: %w", err)
	}
	n := 0
	for _, u := range out.Uploads {
		if _, err := p.c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(p.bucket), Key: u.Key, UploadId: u.UploadId}, whenRequired); err != nil {
			return n, fmt.Errorf("bench: abort multipart upload of %q: %w", aws.ToString(u.Key), err)
		}
		n++
	}
	return n, nil
}

// minioPlain calls minio-go directly.
type minioPlain struct {
	c      *minio.Client
	bucket string
	prefix string
}

func (p *minioPlain) describe() string {
	return "minio-go PutObject / GetObject on the backend's own *minio.Client"
}

func (p *minioPlain) putCall() string   { return "PutObject" }
func (p *minioPlain) getCall() string   { return "GetObject" }
func (p *minioPlain) condition() string { return "If-Match on the last ETag" }

func (p *minioPlain) put(ctx context.Context, key string, data []byte) error {
	_, err := p.c.PutObject(ctx, p.bucket, p.prefix+key, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{})
	if err != nil {
		return fmt.Errorf("bench: plain PutObject %q: %w", key, err)
	}
	return nil
}

func (p *minioPlain) putIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	var o minio.PutObjectOptions
	if etag == "" {
		o.SetMatchETagExcept("*")
	} else {
		o.SetMatchETag(strings.Trim(etag, `"`))
	}
	info, err := p.c.PutObject(ctx, p.bucket, p.prefix+key, bytes.NewReader(data), int64(len(data)), o)
	if err != nil {
		return "", fmt.Errorf("bench: plain conditional PutObject %q: %w", key, err)
	}
	return info.ETag, nil
}

func (p *minioPlain) get(ctx context.Context, key string) (int64, error) {
	obj, err := p.c.GetObject(ctx, p.bucket, p.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		return 0, fmt.Errorf("bench: plain GetObject %q: %w", key, err)
	}
	defer obj.Close()
	n, err := io.Copy(io.Discard, obj)
	if err != nil {
		return n, fmt.Errorf("bench: plain GetObject %q: %w", key, err)
	}
	return n, nil
}

func (p *minioPlain) abortUploads(ctx context.Context, prefix string) (int, error) {
	n := 0
	for u := range p.c.ListIncompleteUploads(ctx, p.bucket, p.prefix+prefix, true) {
		if u.Err != nil {
			return n, fmt.Errorf("bench: list multipart uploads: %w", u.Err)
		}
		if err := p.c.RemoveIncompleteUpload(ctx, p.bucket, u.Key); err != nil {
			return n, fmt.Errorf("bench: abort multipart upload of %q: %w", u.Key, err)
		}
		n++
	}
	return n, nil
}

// backendPlain is the baseline of backends without an SDK of their own
// (memstore, filestore): their own unconditional Put and plain Get.
type backendPlain struct{ b driver.Backend }

func (p backendPlain) describe() string {
	return fmt.Sprintf("the backend's own Put / Get, unfenced (%T)", p.b)
}

func (p backendPlain) putCall() string   { return "Put" }
func (p backendPlain) getCall() string   { return "Get" }
func (p backendPlain) condition() string { return "Update of the last ETag" }

func (p backendPlain) put(ctx context.Context, key string, data []byte) error {
	_, err := p.b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), driver.PutOptions{})
	return err
}

func (p backendPlain) putIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	info, err := p.b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), putMode(etag))
	return info.ETag, err
}

func (p backendPlain) get(ctx context.Context, key string) (int64, error) {
	rc, _, err := p.b.Get(ctx, key, driver.GetOptions{})
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return io.Copy(io.Discard, rc)
}

func (p backendPlain) abortUploads(context.Context, string) (int, error) { return 0, nil }

// putMode is Update of etag, or Create when there is no object yet.
func putMode(etag string) driver.PutOptions {
	if etag == "" {
		return driver.PutOptions{Mode: driver.Create{}}
	}
	return driver.PutOptions{Mode: driver.Update{ETag: etag}}
}
