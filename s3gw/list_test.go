package s3gw_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/s3gw"
)

// TestListDelimiter: ListObjectsV2 and ListObjects page one entry at a
// time through keys and common prefixes, committed and staged, without
// repeating or skipping any, and a deleted key is not listed.
func TestListDelimiter(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, s3gw.CommitAtEnd, false)
	for _, k := range []string{"a/1", "a/2", "c/1"} {
		if _, err := e.store.Put(ctx, testDomain, k, testToken, strings.NewReader("x"), 1); err != nil {
			t.Fatal(err)
		}
	}
	c := e.client(testSecret, nil)
	for _, k := range []string{"b", "a/3", "d/1", "gone"} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key(k), Body: strings.NewReader("y")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(testBucket), Key: s3key("gone")}); err != nil {
		t.Fatal(err)
	}
	want := []string{"a/", "b", "c/", "d/"}
	pfx := testDomain + "/"
	var got []string
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(testBucket), Prefix: aws.String(pfx), Delimiter: aws.String("/"), MaxKeys: aws.Int32(1)})
	for pages := 0; p.HasMorePages(); pages++ {
		if pages > 10 {
			t.Fatalf("ListObjectsV2 still paging after 10 pages: %v", got)
		}
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			got = append(got, strings.TrimPrefix(aws.ToString(o.Key), pfx))
		}
		for _, cp := range page.CommonPrefixes {
			got = append(got, strings.TrimPrefix(aws.ToString(cp.Prefix), pfx))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ListObjectsV2, delimiter /, one a page: %v, want %v", got, want)
	}
	got = nil
	marker := ""
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatalf("ListObjects still paging after 10 pages: %v", got)
		}
		out, err := c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: aws.String(testBucket), Prefix: aws.String(pfx), Delimiter: aws.String("/"), MaxKeys: aws.Int32(1), Marker: aws.String(marker)})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out.Contents {
			got = append(got, strings.TrimPrefix(aws.ToString(o.Key), pfx))
		}
		for _, cp := range out.CommonPrefixes {
			got = append(got, strings.TrimPrefix(aws.ToString(cp.Prefix), pfx))
		}
		if !aws.ToBool(out.IsTruncated) {
			break
		}
		marker = aws.ToString(out.NextMarker)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ListObjects, delimiter /, one a page: %v, want %v", got, want)
	}
	// Above the domain's prefix, the bucket holds the domain alone.
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(testBucket), Delimiter: aws.String("/")})
	if err != nil || len(out.CommonPrefixes) != 1 || aws.ToString(out.CommonPrefixes[0].Prefix) != strings.Split(testDomain, "/")[0]+"/" {
		t.Fatalf("ListObjectsV2 of the bucket's root: %+v, %v", out, err)
	}
}

// TestChecksumMode: a HEAD or GET that asks (x-amz-checksum-mode
// ENABLED) gets the checksum the client sent with the put, and the
// SHA-256 fence keeps; one that does not ask gets neither.
func TestChecksumMode(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, s3gw.CommitAtEnd, false)
	c := e.client(testSecret, nil)
	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(testBucket), Key: s3key("k"), Body: strings.NewReader("checked"), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32c})
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(testBucket), Key: s3key("k"), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil || aws.ToString(h.ChecksumCRC32C) != aws.ToString(put.ChecksumCRC32C) || aws.ToString(h.ChecksumSHA256) == "" {
		t.Fatalf("HEAD with checksum mode: CRC32C %q (put %q), SHA256 %q, %v", aws.ToString(h.ChecksumCRC32C), aws.ToString(put.ChecksumCRC32C), aws.ToString(h.ChecksumSHA256), err)
	}
	h, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(testBucket), Key: s3key("k")})
	if err != nil || h.ChecksumCRC32C != nil || h.ChecksumSHA256 != nil {
		t.Fatalf("HEAD without checksum mode: %v %v, %v", h.ChecksumCRC32C, h.ChecksumSHA256, err)
	}
}

// TestCloseAbortsOpenUploads: a job that ends with a multipart upload
// open leaves nothing of it in the store (the local directory keeps an
// open upload's parts under .fence-tmp).
func TestCloseAbortsOpenUploads(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, err := filestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvOn(t, b, s3gw.CommitAtEnd, false)
	c := e.client(testSecret, nil)
	cr, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(testBucket), Key: s3key("m")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(testBucket), Key: s3key("m"), UploadId: cr.UploadId, PartNumber: aws.Int32(1), Body: strings.NewReader("part")}); err != nil {
		t.Fatal(err)
	}
	parts := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, ".fence-tmp", "parts-*"))
		return m
	}
	if len(parts()) != 1 {
		t.Fatalf("the open upload's parts: %v, want one directory", parts())
	}
	if err := e.gw.Close(ctx, false); err != nil {
		t.Fatal(err)
	}
	if left := parts(); len(left) != 0 {
		t.Fatalf("after Close: %v", left)
	}
	if objs := e.versionObjects(); len(objs) != 0 {
		t.Fatalf("after Close: %v", objs)
	}
}
