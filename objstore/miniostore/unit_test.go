package miniostore

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore"
)

// These tests need no server.

func testClient(t *testing.T) *minio.Client {
	c, err := minio.New("127.0.0.1:9", &minio.Options{Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestErrorClasses(t *testing.T) {
	b := New(testClient(t), "bkt", "")
	for _, tc := range []struct {
		status int
		code   string
		want   error
	}{
		{412, "PreconditionFailed", objstore.ErrPreconditionFailed},
		{409, "ConditionalRequestConflict", objstore.ErrConflict},
		{404, "NoSuchKey", objstore.ErrNotFound},
		{404, "NotFound", objstore.ErrNotFound},
		{404, "NoSuchBucket", objstore.ErrNotFound},
		{404, "NoSuchUpload", nil},
		{409, "BucketAlreadyExists", nil},
		{503, "SlowDown", nil},
		{500, "InternalError", nil},
	} {
		sdk := minio.ErrorResponse{StatusCode: tc.status, Code: tc.code, Message: "test"}
		err := b.fail("put", "k", sdk)
		for _, class := range []error{objstore.ErrPreconditionFailed, objstore.ErrConflict, objstore.ErrNotFound} {
			if got := errors.Is(err, class); got != (class == tc.want) {
				t.Errorf("%d %s: errors.Is(%v) = %v", tc.status, tc.code, class, got)
			}
		}
		var er minio.ErrorResponse
		if !errors.As(err, &er) || er.Code != tc.code {
			t.Errorf("%d %s: minio.ErrorResponse is not in the chain: %v", tc.status, tc.code, err)
		}
		if tc.code == "NoSuchBucket" && !strings.Contains(err.Error(), `bucket "bkt" does not exist`) {
			t.Errorf("NoSuchBucket message does not name the bucket: %v", err)
		}
	}
}

func TestFill(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 300_000) // 3 MB
	for _, limit := range []int64{1, 1000, 64 << 10, 300_000, 1_500_000, 3_000_000, 4_000_000} {
		for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data[:min(int64(len(data)), limit+7)]))} {
			got, eof, err := fill(r, nil, limit)
			if err != nil {
				t.Fatal(err)
			}
			want := data[:min(int64(len(data)), limit)]
			if !bytes.Equal(got, want) || int64(cap(got)) > limit {
				t.Fatalf("limit %d: got %d bytes (cap %d), want %d", limit, len(got), cap(got), len(want))
			}
			if limit > int64(len(data)) && !eof {
				t.Fatalf("limit %d: no EOF", limit)
			}
		}
	}
	r := bytes.NewReader(data)
	first, _, _ := fill(r, nil, 400_000)
	second, _, _ := fill(r, first, 400_000)
	if &first[:1][0] != &second[:1][0] || !bytes.Equal(second, data[400_000:800_000]) {
		t.Fatal("second part did not reuse the first's buffer")
	}
	errBody := errors.New("boom")
	if _, _, err := fill(iotest.ErrReader(errBody), nil, 10); !errors.Is(err, errBody) {
		t.Fatalf("fill on a failing reader: %v", err)
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{
		{SSE: "aes256"},
		{SSE: "AES256", KMSKeyID: "k"},
		{KMSKeyID: "k"},
		{PartSize: 1 << 20},
	} {
		if _, err := Open("127.0.0.1:9", "b", "", &o); !errors.Is(err, objstore.ErrInvalid) {
			t.Errorf("Open(%+v): %v, want ErrInvalid", o, err)
		}
	}
	if _, err := Open("127.0.0.1:9", "", "", nil); !errors.Is(err, objstore.ErrInvalid) {
		t.Errorf("Open with no bucket: %v", err)
	}
	b := New(testClient(t), "", "")
	if _, err := b.Put(t.Context(), "k", strings.NewReader("x"), 1, objstore.PutOptions{}); !errors.Is(err, objstore.ErrInvalid) {
		t.Errorf("New with no bucket, Put: %v, want ErrInvalid", err)
	}
	for _, o := range []Options{{SSE: "aws:kms"}, {SSE: "aws:kms", KMSKeyID: "k"}, {SSE: "AES256"}, {PartSize: MinPartSize}} {
		if _, err := Open("127.0.0.1:9", "b", "", &o); err != nil {
			t.Errorf("Open(%+v): %v", o, err)
		}
	}
}

func TestEndpoints(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		secure   bool
		want     string // Location, or "" for an invalid endpoint
	}{
		{"127.0.0.1:9000", false, "minio://b@http://127.0.0.1:9000"},
		{"127.0.0.1:9000", true, "minio://b@https://127.0.0.1:9000"},
		{"http://127.0.0.1:9000", true, "minio://b@http://127.0.0.1:9000"},
		{"https://minio.example:443/", false, "minio://b@https://minio.example:443"},
		{"http://AKIAEXAMPLE:secret123@127.0.0.1:9000", false, ""},
		{"AKIAEXAMPLE:secret123@127.0.0.1:9000", false, ""},
		{"ftp://127.0.0.1:9000", false, ""},
		{"http://127.0.0.1:9000/bucket", false, ""},
		{"", false, ""},
	} {
		b, err := Open(tc.endpoint, "b", "", &Options{Secure: tc.secure})
		if tc.want == "" {
			if !errors.Is(err, objstore.ErrInvalid) {
				t.Errorf("Open(%q): %v, want ErrInvalid", tc.endpoint, err)
			} else if strings.Contains(err.Error(), "secret123") || strings.Contains(err.Error(), "AKIAEXAMPLE") {
				t.Errorf("Open(%q): the error repeats the credentials: %v", tc.endpoint, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Open(%q): %v", tc.endpoint, err)
			continue
		}
		if got := b.Location(); got != tc.want {
			t.Errorf("Open(%q, secure %v).Location() = %q, want %q", tc.endpoint, tc.secure, got, tc.want)
		}
	}
	if got, want := New(testClient(t), "bkt", "/a/b/").Location(), "minio://bkt/a/b@http://127.0.0.1:9"; got != want {
		t.Errorf("Location() = %q, want %q", got, want)
	}
}

func TestMutuallyExclusivePreconditions(t *testing.T) {
	b := New(testClient(t), "b", "")
	_, err := b.Put(t.Context(), "k", strings.NewReader("x"), 1, objstore.PutOptions{IfMatch: "x", IfNoneMatch: true})
	if !errors.Is(err, objstore.ErrInvalid) {
		t.Fatalf("Put with both preconditions: %v", err)
	}
}
