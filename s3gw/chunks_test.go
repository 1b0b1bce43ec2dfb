package s3gw_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/fencedstore/fence/s3gw"
	"github.com/fencedstore/fence/s3gw/internal/wiretest"
)

// TestSignedChunksRefused: minio-go over plain HTTP signs every chunk
// (STREAMING-AWS4-HMAC-SHA256-PAYLOAD, -TRAILER with a checksum). One
// byte of a chunk signature changed, or of the trailer's checksum, is
// refused with SignatureDoesNotMatch, and nothing is staged, on memstore
// and on MinIO; the same put unchanged is staged byte for byte.
func TestSignedChunksRefused(t *testing.T) {
	for name, newEnv := range map[string]func(t *testing.T) *env{
		"memstore": func(t *testing.T) *env { return newEnv(t, s3gw.CommitAtEnd, false) },
		"minio":    func(t *testing.T) *env { return newEnvOn(t, minioBackend(t), s3gw.CommitAtEnd, false) },
	} {
		t.Run(name, func(t *testing.T) {
			src := payload(150 << 10)
			for _, tc := range []struct {
				name   string
				ck     minio.ChecksumType
				change func([]byte) []byte
			}{
				{"a chunk signature changed", minio.ChecksumNone, wiretest.FlipAfter(t, ";chunk-signature=")},
				{"the trailer's checksum one bit off", minio.ChecksumCRC32C, wiretest.FlipChecksumBit(t, "x-amz-checksum-crc32c:")},
			} {
				e := newEnv(t)
				_, err := minioGo(t, e, tc.change).PutObject(context.Background(), testBucket, testDomain+"/x", bytes.NewReader(src), int64(len(src)), minio.PutObjectOptions{Checksum: tc.ck})
				if code := minio.ToErrorResponse(err).Code; code != "SignatureDoesNotMatch" {
					t.Fatalf("%s: %v (code %q), want SignatureDoesNotMatch", tc.name, err, code)
				}
				if objs := e.versionObjects(); len(objs) != 0 {
					t.Fatalf("%s: staged %v", tc.name, objs)
				}
			}
			e := newEnv(t)
			if _, err := minioGo(t, e, nil).PutObject(context.Background(), testBucket, testDomain+"/x", bytes.NewReader(src), int64(len(src)), minio.PutObjectOptions{Checksum: minio.ChecksumCRC32C}); err != nil {
				t.Fatal(err)
			}
			e.publish()
			got, _, err := e.store.ReadAll(context.Background(), testDomain, "x")
			if err != nil || !bytes.Equal(got, src) {
				t.Fatalf("the unchanged put: %d bytes, %v", len(got), err)
			}
		})
	}
}

// minioGo is minio-go aimed at e's gateway, its requests changed by
// change when it is not nil.
func minioGo(t *testing.T, e *env, change func([]byte) []byte) *minio.Client {
	t.Helper()
	tr := e.ts.Client().Transport
	if change != nil {
		tr = wiretest.Tamper{Next: tr, Change: change}
	}
	c, err := minio.New(strings.TrimPrefix(e.ts.URL, "http://"), &minio.Options{
		Creds: credentials.NewStaticV4(testAccess, testSecret, ""), Region: s3gw.DefaultRegion,
		Transport: tr, MaxRetries: 1, TrailingHeaders: true, BucketLookup: minio.BucketLookupPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
