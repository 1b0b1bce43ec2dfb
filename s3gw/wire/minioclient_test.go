package wire_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/fencedstore/fence/s3gw/internal/wiretest"
	"github.com/fencedstore/fence/s3gw/wire"
)

// minioClient is minio-go aimed at ts, with secret, its transport wrapped
// in change when change is not nil.
func minioClient(t *testing.T, ts *httptest.Server, secret string, change func([]byte) []byte) *minio.Client {
	t.Helper()
	tr := ts.Client().Transport
	if change != nil {
		tr = wiretest.Tamper{Next: tr, Change: change}
	}
	c, err := minio.New(strings.TrimPrefix(strings.TrimPrefix(ts.URL, "https://"), "http://"), &minio.Options{
		Creds:      credentials.NewStaticV4(testAccessKey, secret, ""),
		Secure:     strings.HasPrefix(ts.URL, "https://"),
		Region:     testRegion,
		Transport:  tr,
		MaxRetries: 1,
		// TrailingHeaders lets minio-go send a checksum in a trailer.
		TrailingHeaders: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var minioChecksums = []minio.ChecksumType{
	minio.ChecksumNone, minio.ChecksumCRC32, minio.ChecksumCRC32C, minio.ChecksumCRC64NVME, minio.ChecksumSHA1, minio.ChecksumSHA256,
}

// TestMinioPutObject sends PutObject from minio-go: over plain HTTP it
// signs every chunk (STREAMING-AWS4-HMAC-SHA256-PAYLOAD, and the -TRAILER
// variant when asked for a checksum), over TLS it sends an unsigned body
// with a trailer. The decoded bytes must be the source's exactly.
func TestMinioPutObject(t *testing.T) {
	src := payload(200<<10 + 3)
	modes := map[string]bool{}
	for _, tls := range []bool{false, true} {
		rc, ts := startServer(t, tls, nil)
		for _, ck := range minioChecksums {
			_, err := minioClient(t, ts, testSecret, nil).PutObject(context.Background(), "bkt", "dir/obj", bytes.NewReader(src), int64(len(src)),
				minio.PutObjectOptions{Checksum: ck})
			if err != nil {
				t.Fatalf("tls=%v %v: PutObject: %v", tls, ck, err)
			}
			got := rc.last(t)
			modes[got.Mode] = true
			if !bytes.Equal(got.Bytes, src) {
				t.Fatalf("tls=%v %v (%s): the server decoded %d bytes that differ from the %d sent", tls, ck, got.Mode, len(got.Bytes), len(src))
			}
			if ck.IsSet() && got.Checksum.Algorithm == "" {
				t.Errorf("tls=%v %v (%s): no checksum verified", tls, ck, got.Mode)
			}
		}
	}
	t.Logf("payload modes sent by minio-go: %v", modes)
	for _, m := range []string{wire.StreamingSigned, wire.StreamingSignedTrailer} {
		if !modes[m] {
			t.Errorf("minio-go never sent %s (modes seen: %v)", m, modes)
		}
	}
}

// TestMinioRefusals: minio-go's signed chunks with one byte of a chunk
// signature changed, a data byte changed, a trailer checksum one bit off
// (which breaks the trailer's signature) and a wrong secret are refused,
// and nothing is kept.
func TestMinioRefusals(t *testing.T) {
	src := payload(150 << 10)
	for _, tc := range []struct {
		name     string
		ck       minio.ChecksumType
		secret   string
		change   func([]byte) []byte
		wantMode string
		wantCode string
	}{
		{"one byte of a chunk signature", minio.ChecksumNone, testSecret, wiretest.FlipAfter(t, ";chunk-signature="), wire.StreamingSigned, wire.CodeSignatureDoesNotMatch},
		{"one data byte", minio.ChecksumNone, testSecret, func(b []byte) []byte { b[len(b)/2] ^= 1; return b }, wire.StreamingSigned, wire.CodeSignatureDoesNotMatch},
		{"signed trailer checksum one bit off", minio.ChecksumCRC32, testSecret, wiretest.FlipChecksumBit(t, "x-amz-checksum-crc32:"), wire.StreamingSignedTrailer, wire.CodeSignatureDoesNotMatch},
		{"one byte of the trailer signature", minio.ChecksumCRC32, testSecret, wiretest.FlipAfter(t, "x-amz-trailer-signature:"), wire.StreamingSignedTrailer, wire.CodeSignatureDoesNotMatch},
		{"wrong secret", minio.ChecksumNone, "not-the-secret", nil, wire.StreamingSigned, wire.CodeSignatureDoesNotMatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, ts := startServer(t, false, nil)
			_, err := minioClient(t, ts, tc.secret, tc.change).PutObject(context.Background(), "bkt", "k", bytes.NewReader(src), int64(len(src)),
				minio.PutObjectOptions{Checksum: tc.ck})
			if code := minio.ToErrorResponse(err).Code; code != tc.wantCode {
				t.Fatalf("PutObject: code %q (err %v), want %s", code, err, tc.wantCode)
			}
			got := rc.last(t)
			if got.Mode != tc.wantMode {
				t.Errorf("minio-go sent mode %s, the test meant %s", got.Mode, tc.wantMode)
			}
			if got.Bytes != nil || got.Status != http.StatusForbidden {
				t.Errorf("status %d and %d bytes kept, want 403 and none", got.Status, len(got.Bytes))
			}
		})
	}
}
