package s3gw_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/s3gw"
	"github.com/fencedstore/fence/s3gw/wire"
)

// md5Parts is a memstore whose part ETags are what etag makes of the
// part's MD5, as S3's are the MD5 itself; it maps them back to
// memstore's own at completion.
type md5Parts struct {
	*memstore.Backend
	mu    sync.Mutex
	etag  func(md5 []byte) string
	inner map[string]string // our ETag -> memstore's
}

func newMD5Parts() *md5Parts {
	return &md5Parts{Backend: memstore.New(), etag: hex.EncodeToString, inner: map[string]string{}}
}

func (m *md5Parts) setETag(f func([]byte) string) {
	m.mu.Lock()
	m.etag = f
	m.mu.Unlock()
}

func (m *md5Parts) UploadPart(ctx context.Context, key, uploadID string, n int, body io.Reader, size int64) (string, error) {
	h := md5.New()
	inner, err := m.Backend.UploadPart(ctx, key, uploadID, n, io.TeeReader(body, h), size)
	if err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	etag := m.etag(h.Sum(nil))
	m.inner[etag] = inner
	return etag, nil
}

func (m *md5Parts) CompleteParts(ctx context.Context, key, uploadID string, parts []driver.CompletedPart, mode driver.PutMode) (driver.ObjectInfo, error) {
	m.mu.Lock()
	mapped := make([]driver.CompletedPart, len(parts))
	for i, p := range parts {
		mapped[i] = p
		mapped[i].ETag = m.inner[p.ETag]
	}
	m.mu.Unlock()
	return m.Backend.CompleteParts(ctx, key, uploadID, mapped, mode)
}

func startUpload(t *testing.T, c *s3.Client, key string) *string {
	t.Helper()
	cr, err := c.CreateMultipartUpload(context.Background(), &s3.CreateMultipartUploadInput{Bucket: aws.String(testBucket), Key: s3key(key)})
	if err != nil {
		t.Fatal(err)
	}
	return cr.UploadId
}

func uploadPart(c *s3.Client, key string, id *string, n int, data []byte, contentMD5 string) (*s3.UploadPartOutput, error) {
	in := &s3.UploadPartInput{Bucket: aws.String(testBucket), Key: s3key(key), UploadId: id, PartNumber: aws.Int32(int32(n)), Body: bytes.NewReader(data)}
	if contentMD5 != "" {
		in.ContentMD5 = aws.String(contentMD5)
	}
	return c.UploadPart(context.Background(), in)
}

func quotedMD5(b []byte) string { return `"` + hex.EncodeToString(md5sum(b)) + `"` }

// TestPartETagsLearntFromStore: once the store's ETag of a part has been
// its MD5, the gateway answers later parts with the store's ETags rather
// than hashing them (seen here by a store that then answers with other
// hex strings, which reach the client), and the value is whole; a
// Content-MD5 is still checked. On a store whose part ETags are not MD5s
// every part's ETag is its MD5, computed. (Fails when the gateway always
// hashes, or trusts the store's ETags without having seen one match.)
func TestPartETagsLearntFromStore(t *testing.T) {
	ctx := context.Background()
	src := payload(2*partSize + 1000)
	parts := [][]byte{src[:partSize], src[partSize : 2*partSize], src[2*partSize:]}

	t.Run("store ETags are MD5s", func(t *testing.T) {
		b := newMD5Parts()
		e := newEnvOn(t, b, s3gw.CommitAtEnd, false)
		c := e.client(testSecret, nil)
		id := startUpload(t, c, "v")
		out, err := uploadPart(c, "v", id, 1, parts[0], "")
		if err != nil || aws.ToString(out.ETag) != quotedMD5(parts[0]) {
			t.Fatalf("part 1: ETag %v (%v), want its MD5 %s", aws.ToString(out.ETag), err, quotedMD5(parts[0]))
		}
		b.setETag(func(sum []byte) string { return strings.Repeat("ab", 16) })
		out2, err := uploadPart(c, "v", id, 2, parts[1], "")
		if err != nil || aws.ToString(out2.ETag) != `"`+strings.Repeat("ab", 16)+`"` {
			t.Fatalf("part 2: ETag %v (%v), want the store's", aws.ToString(out2.ETag), err)
		}
		// A Content-MD5 is checked even so.
		wrong := base64.StdEncoding.EncodeToString(md5sum([]byte("other")))
		if _, err := uploadPart(c, "v", id, 3, parts[2], wrong); s3Code(err) != wire.CodeBadDigest {
			t.Fatalf("part 3 with a wrong Content-MD5: %v, want %s", err, wire.CodeBadDigest)
		}
		b.setETag(hex.EncodeToString)
		right := base64.StdEncoding.EncodeToString(md5sum(parts[2]))
		out3, err := uploadPart(c, "v", id, 3, parts[2], right)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(testBucket), Key: s3key("v"), UploadId: id,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{
				{PartNumber: aws.Int32(1), ETag: out.ETag}, {PartNumber: aws.Int32(2), ETag: out2.ETag}, {PartNumber: aws.Int32(3), ETag: out3.ETag}}}})
		if err != nil {
			t.Fatal(err)
		}
		e.publish()
		if got, _, err := e.store.ReadAll(ctx, testDomain, "v"); err != nil || !bytes.Equal(got, src) {
			t.Fatalf("the value after the commit: %d bytes, %v", len(got), err)
		}
	})

	t.Run("store ETags are not MD5s", func(t *testing.T) {
		e := newEnv(t, s3gw.CommitAtEnd, false) // memstore: SHA-256 ETags
		c := e.client(testSecret, nil)
		id := startUpload(t, c, "v")
		for i, p := range parts {
			out, err := uploadPart(c, "v", id, i+1, p, "")
			if err != nil || aws.ToString(out.ETag) != quotedMD5(p) {
				t.Fatalf("part %d: ETag %v (%v), want its MD5", i+1, aws.ToString(out.ETag), err)
			}
		}
	})

	t.Run("a store ETag that is not an MD5 after all", func(t *testing.T) {
		b := newMD5Parts()
		e := newEnvOn(t, b, s3gw.CommitAtEnd, false)
		c := e.client(testSecret, nil)
		id := startUpload(t, c, "v")
		if _, err := uploadPart(c, "v", id, 1, parts[0], ""); err != nil {
			t.Fatal(err)
		}
		b.setETag(func(sum []byte) string { return "block-" + hex.EncodeToString(sum[:4]) })
		if _, err := uploadPart(c, "v", id, 2, parts[1], ""); s3Code(err) != wire.CodeInternalError {
			t.Fatalf("part 2 with a store ETag that is no MD5: %v, want %s (which clients retry)", err, wire.CodeInternalError)
		}
		out, err := uploadPart(c, "v", id, 2, parts[1], "") // the client's retry
		if err != nil || aws.ToString(out.ETag) != quotedMD5(parts[1]) {
			t.Fatalf("part 2 again: ETag %v (%v), want its MD5, computed", aws.ToString(out.ETag), err)
		}
	})
}
