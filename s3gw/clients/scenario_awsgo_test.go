package clients

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// awsGoScenario is the scenario with aws-sdk-go-v2 and its defaults for
// request checksums. config.LoadDefaultConfig reads the endpoint
// (AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL), the credentials, the region
// and AWS_CA_BUNDLE from the environment. The multipart upload is the
// explicit Create, UploadPart, Complete: the upload manager is not in
// go.mod.
func awsGoScenario(t *testing.T, in scenarioInput) {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatalf("loading the SDK's configuration from the environment: %v", err)
	}
	c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	b, p := aws.String(in.bucket), in.prefix
	key := func(name string) *string { return aws.String(p + name) }
	put := func(name string, body []byte) {
		t.Helper()
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: key(name), Body: bytes.NewReader(body)}); err != nil {
			t.Fatalf("put %s: %v", name, err)
		}
	}
	get := func(name, rng string) []byte {
		t.Helper()
		in := &s3.GetObjectInput{Bucket: b, Key: key(name)}
		if rng != "" {
			in.Range = aws.String(rng)
		}
		out, err := c.GetObject(ctx, in)
		if err != nil {
			t.Fatalf("get %s %s: %v", name, rng, err)
		}
		defer out.Body.Close()
		got, err := io.ReadAll(out.Body)
		if err != nil {
			t.Fatalf("reading %s %s: %v", name, rng, err)
		}
		return got
	}

	t.Log("1. put small.bin")
	put("small.bin", in.small)

	t.Log("2. multipart upload of big.bin")
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: key("big.bin")})
	if err != nil {
		t.Fatalf("create multipart upload of big.bin: %v", err)
	}
	var parts []types.CompletedPart
	for n, off := int32(1), 0; off < len(in.big); n, off = n+1, off+partSize {
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{
			Bucket: b, Key: key("big.bin"), UploadId: up.UploadId, PartNumber: aws.Int32(n),
			Body: bytes.NewReader(in.big[off:min(off+partSize, len(in.big))]),
		})
		if err != nil {
			t.Fatalf("upload part %d of big.bin: %v", n, err)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(n), ETag: out.ETag, ChecksumCRC32: out.ChecksumCRC32})
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: b, Key: key("big.bin"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
	}); err != nil {
		t.Fatalf("complete multipart upload of big.bin: %v", err)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: key("big.bin")})
	if err != nil {
		t.Fatalf("head big.bin: %v", err)
	}
	checkMultipartETag(t, aws.ToString(head.ETag))

	t.Log("3. get small.bin, and bytes 1000-1999 of big.bin")
	checkBytes(t, "small.bin", get("small.bin", ""), in.small)
	checkBytes(t, "bytes 1000-1999 of big.bin", get("big.bin", "bytes=1000-1999"), in.big[1000:2000])

	t.Log("4. put list/0 .. list/4, list them 2 a page")
	for i, body := range in.list {
		put(fmt.Sprintf("list/%d", i), body)
	}
	var keys []string
	pages := 0
	pg := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: b, Prefix: key("list/"), MaxKeys: aws.Int32(2)})
	for pg.HasMorePages() {
		out, err := pg.NextPage(ctx)
		if err != nil {
			t.Fatalf("list page %d: %v", pages+1, err)
		}
		pages++
		if len(out.Contents) > 2 {
			t.Fatalf("page %d held %d keys; asked for at most 2", pages, len(out.Contents))
		}
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	checkListed(t, p, keys, pages)

	t.Log("5. server-side copy small.bin -> copy.bin")
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{
		Bucket: b, Key: key("copy.bin"), CopySource: aws.String(in.bucket + "/" + url.PathEscape(p+"small.bin")),
	}); err != nil {
		t.Fatalf("copy small.bin to copy.bin: %v", err)
	}

	t.Log("6. put gone.bin, delete it, check it is gone")
	put("gone.bin", in.small)
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: key("gone.bin")}); err != nil {
		t.Fatalf("delete gone.bin: %v", err)
	}
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: key("gone.bin")})
	var nf *types.NotFound
	if !errors.As(err, &nf) {
		t.Fatalf("head of the deleted gone.bin: got %v, want NotFound (404)", err)
	}
}
