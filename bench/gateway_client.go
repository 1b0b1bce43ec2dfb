package bench

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
	"github.com/fencedstore/fence/s3gw"
)

// The gateway case's client: one aws-sdk-go-v2 configuration, as a
// job's S3 client has it (the SDK's default request checksums, path-style
// addressing), made twice: once for the gateway's endpoint and
// credentials, once for the store's. Both share one HTTP client, so the
// transport settings are the same.

// s3Target is where an S3 client sends its requests, with what
// credentials: the store's own endpoint, or a gateway's.
type s3Target struct {
	endpoint string // "" resolves AWS's endpoint for region
	region   string
	creds    aws.CredentialsProvider
	bucket   string
	prefix   string // the S3 key prefix of the backend's keys: "" or ending in "/"
}

// storeTarget returns the S3 endpoint, region, credentials, bucket and
// key prefix of b, as its own SDK client has them, or says why b has
// none.
func storeTarget(ctx context.Context, b driver.Backend) (s3Target, error) {
	switch b := b.(type) {
	case *s3store.Backend:
		o := b.Client().Options()
		return s3Target{endpoint: aws.ToString(o.BaseEndpoint), region: o.Region, creds: o.Credentials, bucket: b.Bucket(), prefix: b.Prefix()}, nil
	case *miniostore.Backend:
		c := b.Client()
		v, err := c.GetCreds()
		if err != nil {
			return s3Target{}, fmt.Errorf("bench: the minio-go client's credentials: %w", err)
		}
		region, err := c.GetBucketLocation(ctx, b.Bucket())
		if err != nil {
			return s3Target{}, fmt.Errorf("bench: the region of bucket %s: %w", b.Bucket(), err)
		}
		if region == "" {
			region = s3gw.DefaultRegion
		}
		u := c.EndpointURL()
		return s3Target{
			endpoint: u.Scheme + "://" + u.Host, region: region,
			creds:  credentials.NewStaticCredentialsProvider(v.AccessKeyID, v.SecretAccessKey, v.SessionToken),
			bucket: b.Bucket(), prefix: b.Prefix(),
		}, nil
	}
	return s3Target{}, fmt.Errorf("a %T has no S3 endpoint to compare the gateway with", b)
}

// newS3Client returns the case's client for t, on httpClient.
func newS3Client(t s3Target, httpClient aws.HTTPClient) *s3.Client {
	o := s3.Options{
		Region:       t.region,
		Credentials:  t.creds,
		UsePathStyle: true,
		HTTPClient:   httpClient,
	}
	if t.endpoint != "" {
		o.BaseEndpoint = aws.String(t.endpoint)
	}
	return s3.New(o)
}

// newGatewayHTTPClient is the HTTP client both sides share: the SDK's
// default.
func newGatewayHTTPClient() aws.HTTPClient { return awshttp.NewBuildableClient() }

// s3Side is one side of a gateway row: a client and where its keys go.
type s3Side struct {
	c      *s3.Client
	bucket string
	prefix string // prepended to every key
}

// put makes one PutObject of body to key.
func (s s3Side) put(ctx context.Context, key string, body []byte) error {
	_, err := s.c.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(s.prefix + key),
		Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
	})
	if err != nil {
		return fmt.Errorf("bench: PutObject %s: %w", s.prefix+key, err)
	}
	return nil
}

// multipart uploads size bytes to key as a multipart upload: parts of
// partSize, conc at a time, each started in order of part number as a
// slot frees (as an upload manager does), then one
// CompleteMultipartUpload. The parts' bytes come from data, one buffer
// per part size. A failed upload is aborted.
func (s s3Side) multipart(ctx context.Context, key string, size, partSize int64, conc int, data *payloads) error {
	k := aws.String(s.prefix + key)
	up, err := s.c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(s.bucket), Key: k})
	if err != nil {
		return fmt.Errorf("bench: CreateMultipartUpload %s: %w", *k, err)
	}
	n := int((size + partSize - 1) / partSize)
	parts := make([]types.CompletedPart, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for i := range n {
		body := data.get(min(partSize, size-int64(i)*partSize))
		g.Go(func() error {
			num := aws.Int32(int32(i + 1))
			out, err := s.c.UploadPart(gctx, &s3.UploadPartInput{
				Bucket: aws.String(s.bucket), Key: k, UploadId: up.UploadId, PartNumber: num,
				Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
			})
			if err != nil {
				return fmt.Errorf("bench: UploadPart %d of %s: %w", i+1, *k, err)
			}
			parts[i] = types.CompletedPart{PartNumber: num, ETag: out.ETag, ChecksumCRC32: out.ChecksumCRC32}
			return nil
		})
	}
	if err = g.Wait(); err == nil {
		_, err = s.c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
			Bucket: aws.String(s.bucket), Key: k, UploadId: up.UploadId,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
		})
		if err != nil {
			err = fmt.Errorf("bench: CompleteMultipartUpload %s: %w", *k, err)
		}
	}
	if err != nil {
		_, _ = s.c.AbortMultipartUpload(context.WithoutCancel(ctx), &s3.AbortMultipartUploadInput{Bucket: aws.String(s.bucket), Key: k, UploadId: up.UploadId})
	}
	return err
}

// describeEndpoint names t's endpoint for a row's baseline.
func (t s3Target) describeEndpoint() string {
	if t.endpoint == "" {
		return "AWS's endpoint for " + t.region
	}
	return strings.TrimSuffix(t.endpoint, "/")
}
