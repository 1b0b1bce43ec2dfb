package wire_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/fencedstore/fence/s3gw/internal/wiretest"
	"github.com/fencedstore/fence/s3gw/wire"
)

// sdkClient is aws-sdk-go-v2's S3 client aimed at ts, with secret, and
// with its HTTP transport wrapped in change when change is not nil.
func sdkClient(ts *httptest.Server, secret string, change func([]byte) []byte) *s3.Client {
	hc := ts.Client()
	if change != nil {
		hc.Transport = wiretest.Tamper{Next: hc.Transport, Change: change}
	}
	return s3.New(s3.Options{
		BaseEndpoint:     aws.String(ts.URL),
		UsePathStyle:     true,
		Region:           testRegion,
		Credentials:      credentials.NewStaticCredentialsProvider(testAccessKey, secret, ""),
		HTTPClient:       hc,
		RetryMaxAttempts: 1,
	})
}

var sdkAlgorithms = []types.ChecksumAlgorithm{
	types.ChecksumAlgorithmCrc32, types.ChecksumAlgorithmCrc32c, types.ChecksumAlgorithmCrc64nvme,
	types.ChecksumAlgorithmSha1, types.ChecksumAlgorithmSha256,
}

// TestSDKPutObject sends PutObject with each checksum algorithm from
// aws-sdk-go-v2 over plain HTTP and over TLS, where the SDK sends an
// aws-chunked body with the checksum in a trailer. The bytes the server
// decodes must be the source's exactly, and the checksum the one the SDK
// computed.
func TestSDKPutObject(t *testing.T) {
	src := payload(300 << 10)
	modes := map[string]bool{}
	for _, tls := range []bool{false, true} {
		rc, ts := startServer(t, tls, nil)
		for _, alg := range sdkAlgorithms {
			for _, body := range []struct {
				name string
				r    func() any
			}{
				{"seekable", func() any { return bytes.NewReader(src) }},
				{"stream", func() any { return struct{ io.Reader }{bytes.NewReader(src)} }},
			} {
				in := &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String("dir/obj"), ChecksumAlgorithm: alg}
				switch r := body.r().(type) {
				case *bytes.Reader:
					in.Body = r
				case struct{ io.Reader }:
					in.Body, in.ContentLength = r, aws.Int64(int64(len(src)))
				}
				if !tls && body.name == "stream" {
					continue // the SDK sends a stream only over TLS, with a trailer
				}
				out, err := sdkClient(ts, testSecret, nil).PutObject(context.Background(), in)
				if err != nil {
					t.Fatalf("tls=%v %s %s: PutObject: %v", tls, alg, body.name, err)
				}
				got := rc.last(t)
				modes[got.Mode] = true
				if !bytes.Equal(got.Bytes, src) {
					t.Fatalf("tls=%v %s %s (%s): the server decoded %d bytes that differ from the %d sent", tls, alg, body.name, got.Mode, len(got.Bytes), len(src))
				}
				if got.Checksum.Algorithm != wire.Algorithm(alg) {
					t.Errorf("tls=%v %s %s (%s): the server verified checksum %q", tls, alg, body.name, got.Mode, got.Checksum.Algorithm)
				}
				if v := sdkChecksum(out, alg); v != got.Checksum.Value {
					t.Errorf("tls=%v %s %s: the SDK computed %q, the server %q", tls, alg, body.name, v, got.Checksum.Value)
				}
			}
		}
	}
	t.Logf("payload modes sent by aws-sdk-go-v2: %v", modes)
	if !modes[wire.StreamingUnsignedTrailer] {
		t.Errorf("aws-sdk-go-v2 never sent %s; the trailer mode went untested (modes seen: %v)", wire.StreamingUnsignedTrailer, modes)
	}
}

func sdkChecksum(out *s3.PutObjectOutput, alg types.ChecksumAlgorithm) string {
	switch alg {
	case types.ChecksumAlgorithmCrc32:
		return aws.ToString(out.ChecksumCRC32)
	case types.ChecksumAlgorithmCrc32c:
		return aws.ToString(out.ChecksumCRC32C)
	case types.ChecksumAlgorithmCrc64nvme:
		return aws.ToString(out.ChecksumCRC64NVME)
	case types.ChecksumAlgorithmSha1:
		return aws.ToString(out.ChecksumSHA1)
	case types.ChecksumAlgorithmSha256:
		return aws.ToString(out.ChecksumSHA256)
	}
	return ""
}

// TestSDKUploadPart sends UploadPart from aws-sdk-go-v2 over TLS with
// each algorithm, with the part as a stream, as transfer managers send it.
func TestSDKUploadPart(t *testing.T) {
	src := payload(5<<20 + 17)
	rc, ts := startServer(t, true, nil)
	for i, alg := range sdkAlgorithms {
		_, err := sdkClient(ts, testSecret, nil).UploadPart(context.Background(), &s3.UploadPartInput{
			Bucket: aws.String("bkt"), Key: aws.String("big"), UploadId: aws.String("upload-1"),
			PartNumber: aws.Int32(int32(i + 1)), ChecksumAlgorithm: alg,
			Body: struct{ io.Reader }{bytes.NewReader(src)}, ContentLength: aws.Int64(int64(len(src))),
		})
		if err != nil {
			t.Fatalf("%s: UploadPart: %v", alg, err)
		}
		got := rc.last(t)
		if !bytes.Equal(got.Bytes, src) || got.Checksum.Algorithm != wire.Algorithm(alg) {
			t.Fatalf("%s (%s): decoded %d bytes equal=%v, checksum %q", alg, got.Mode, len(got.Bytes), bytes.Equal(got.Bytes, src), got.Checksum.Algorithm)
		}
	}
}

// s3Code returns the S3 error code of an SDK error.
func s3Code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// TestSDKRefusals: a trailer checksum one bit off, a byte changed in the
// body, a wrong secret and an unknown key are each refused with the code
// clients switch on, and nothing of the body is kept.
func TestSDKRefusals(t *testing.T) {
	src := payload(100 << 10)
	// stream is a PutObject of src: a stream over TLS, which the SDK sends
	// with a trailer, and seekable over HTTP, which it signs.
	stream := func(tls bool) *s3.PutObjectInput {
		in := &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String("k"), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32,
			Body: bytes.NewReader(src)}
		if tls {
			in.Body, in.ContentLength = struct{ io.Reader }{bytes.NewReader(src)}, aws.Int64(int64(len(src)))
		}
		return in
	}
	for _, tc := range []struct {
		name     string
		tls      bool
		secret   string
		change   func([]byte) []byte
		wantMode string
		wantCode string
	}{
		{"trailer checksum one bit off", true, testSecret, wiretest.FlipChecksumBit(t, "x-amz-checksum-crc32:"), wire.StreamingUnsignedTrailer, wire.CodeBadDigest},
		{"one data byte changed under a trailer", true, testSecret, func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }, wire.StreamingUnsignedTrailer, wire.CodeBadDigest},
		{"wrong secret over TLS", true, "not-the-secret", nil, wire.StreamingUnsignedTrailer, wire.CodeSignatureDoesNotMatch},
		{"wrong secret over HTTP", false, "not-the-secret", nil, "", wire.CodeSignatureDoesNotMatch},
		{"one data byte changed under a signed hash", false, testSecret, func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }, "", wire.CodeXAmzContentSHA256Mismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, ts := startServer(t, tc.tls, nil)
			_, err := sdkClient(ts, tc.secret, tc.change).PutObject(context.Background(), stream(tc.tls))
			if code := s3Code(err); code != tc.wantCode {
				t.Fatalf("PutObject: code %q (err %v), want %s", code, err, tc.wantCode)
			}
			got := rc.last(t)
			if tc.wantMode != "" && got.Mode != tc.wantMode {
				t.Errorf("the SDK sent mode %s, the test meant %s", got.Mode, tc.wantMode)
			}
			if got.Bytes != nil {
				t.Errorf("the server kept %d bytes of a refused request", len(got.Bytes))
			}
		})
	}
	t.Run("unknown access key", func(t *testing.T) {
		rc, ts := startServer(t, false, nil)
		c := s3.New(s3.Options{BaseEndpoint: aws.String(ts.URL), UsePathStyle: true, Region: testRegion, RetryMaxAttempts: 1,
			Credentials: credentials.NewStaticCredentialsProvider("AKIDSOMEONEELSE", testSecret, "")})
		_, err := c.PutObject(context.Background(), stream(false))
		if code := s3Code(err); code != wire.CodeInvalidAccessKeyID {
			t.Fatalf("PutObject: code %q (err %v), want %s", code, err, wire.CodeInvalidAccessKeyID)
		}
		if got := rc.last(t); got.Bytes != nil {
			t.Errorf("the server kept %d bytes", len(got.Bytes))
		}
	})
}

// TestSDKPresigned: a URL presigned by aws-sdk-go-v2 works with a plain
// HTTP client until it expires, then is refused with AccessDenied "Request
// has expired"; a presigned URL with its signature changed is refused.
func TestSDKPresigned(t *testing.T) {
	var clock time.Time
	now := func() time.Time { return clock }
	rc, ts := startServer(t, false, now)
	src := payload(1000)
	signedAt := time.Now()
	clock = signedAt
	pc := s3.NewPresignClient(sdkClient(ts, testSecret, nil), func(o *s3.PresignOptions) {
		o.Expires = 10 * time.Minute
		o.ClientOptions = append(o.ClientOptions, func(o *s3.Options) {})
	})
	req, err := pc.PresignPutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String("a b/c+d~e")})
	if err != nil {
		t.Fatal(err)
	}
	put := func(url string) (int, string) {
		hr, err := http.NewRequest(req.Method, url, bytes.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range req.SignedHeader {
			if !strings.EqualFold(k, "host") {
				hr.Header[k] = v
			}
		}
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		_, _ = io.Copy(&b, resp.Body)
		return resp.StatusCode, b.String()
	}
	if status, body := put(req.URL); status != 200 {
		t.Fatalf("fresh presigned PUT: %d %s", status, body)
	}
	if got := rc.last(t); got.Mode != "presigned" || !bytes.Equal(got.Bytes, src) {
		t.Fatalf("fresh presigned PUT: mode %q, %d bytes, equal=%v", got.Mode, len(got.Bytes), bytes.Equal(got.Bytes, src))
	}
	clock = signedAt.Add(11 * time.Minute)
	status, body := put(req.URL)
	if status != 403 || !strings.Contains(body, "<Code>AccessDenied</Code>") || !strings.Contains(body, "Request has expired") {
		t.Fatalf("expired presigned PUT: %d %s", status, body)
	}
	if got := rc.last(t); got.Bytes != nil {
		t.Errorf("the server kept %d bytes of an expired presigned PUT", len(got.Bytes))
	}
	clock = signedAt
	i := strings.Index(req.URL, "X-Amz-Signature=") + len("X-Amz-Signature=")
	bad := []byte(req.URL)
	if bad[i] == 'a' {
		bad[i] = 'b'
	} else {
		bad[i] = 'a'
	}
	if status, body := put(string(bad)); status != 403 || !strings.Contains(body, "<Code>SignatureDoesNotMatch</Code>") {
		t.Fatalf("presigned PUT with a changed signature: %d %s", status, body)
	}
	rc.take()
}

// TestSDKVirtualHost: a virtual-host-style request (Host: bkt.localhost)
// verifies, the bucket being part of the signed host rather than of the
// path.
func TestSDKVirtualHost(t *testing.T) {
	rc, ts := startServer(t, false, nil)
	addr := strings.TrimPrefix(ts.URL, "http://")
	_, port, _ := strings.Cut(addr, ":")
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}}
	c := s3.New(s3.Options{BaseEndpoint: aws.String("http://localhost:" + port), Region: testRegion, RetryMaxAttempts: 1, HTTPClient: hc,
		Credentials: credentials.NewStaticCredentialsProvider(testAccessKey, testSecret, "")})
	src := payload(4096)
	if _, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String("k/v"), Body: bytes.NewReader(src)}); err != nil {
		t.Fatalf("virtual-host PutObject: %v", err)
	}
	got := rc.last(t)
	if got.Path != "/k/v" || !bytes.Equal(got.Bytes, src) {
		t.Fatalf("path %q, %d bytes, equal=%v", got.Path, len(got.Bytes), bytes.Equal(got.Bytes, src))
	}
}
