package s3store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fencedstore/fence/objstore"
)

// These tests need no server.

func sdkError(status int, code string) error {
	return &smithy.OperationError{ServiceID: "S3", OperationName: "PutObject", Err: &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
			Err:      &smithy.GenericAPIError{Code: code, Message: "test"},
		},
	}}
}

func TestErrorClasses(t *testing.T) {
	b := New(s3.New(s3.Options{Region: "us-east-1"}), "bkt", "", nil)
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
		sdk := sdkError(tc.status, tc.code)
		err := b.fail("put", "k", sdk)
		for _, class := range []error{objstore.ErrPreconditionFailed, objstore.ErrConflict, objstore.ErrNotFound} {
			if got := errors.Is(err, class); got != (class == tc.want) {
				t.Errorf("%d %s: errors.Is(%v) = %v", tc.status, tc.code, class, got)
			}
		}
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != tc.code || !errors.Is(err, sdk) {
			t.Errorf("%d %s: the SDK error is not in the chain: %v", tc.status, tc.code, err)
		}
		if tc.code == "NoSuchBucket" && !strings.Contains(err.Error(), `bucket "bkt" does not exist`) {
			t.Errorf("NoSuchBucket message does not name the bucket: %v", err)
		}
	}
}

func TestFill(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 100_000) // 1 MB
	for _, limit := range []int64{1, 1000, 64 << 10, 300_000, 1_000_000, 2_000_000} {
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
	// The buffer is reused for the next part.
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
		{MultipartThreshold: -1},
	} {
		if _, err := Open(t.Context(), "b", "", &o); !errors.Is(err, objstore.ErrInvalid) {
			t.Errorf("Open(%+v): %v, want ErrInvalid", o, err)
		}
		b := New(s3.New(s3.Options{Region: "us-east-1"}), "b", "", &o)
		if _, err := b.Put(t.Context(), "k", strings.NewReader("x"), 1, objstore.PutOptions{}); !errors.Is(err, objstore.ErrInvalid) {
			t.Errorf("New(%+v).Put: %v, want ErrInvalid", o, err)
		}
	}
	if _, err := Open(t.Context(), "", "", nil); !errors.Is(err, objstore.ErrInvalid) {
		t.Errorf("Open with no bucket: %v", err)
	}
	for _, o := range []Options{{SSE: "aws:kms"}, {SSE: "aws:kms", KMSKeyID: "k"}, {SSE: "AES256"}, {PartSize: MinPartSize}} {
		if _, err := Open(t.Context(), "b", "", &o); err != nil {
			t.Errorf("Open(%+v): %v", o, err)
		}
	}
}

func TestEndpointCredentialsRefused(t *testing.T) {
	_, err := Open(t.Context(), "b", "", &Options{Endpoint: "http://AKIAEXAMPLE:secret123@127.0.0.1:9000"})
	if !errors.Is(err, objstore.ErrInvalid) {
		t.Fatalf("Open with credentials in the endpoint: %v, want ErrInvalid", err)
	}
	if strings.Contains(err.Error(), "secret123") || strings.Contains(err.Error(), "AKIAEXAMPLE") {
		t.Fatalf("the error repeats the credentials: %v", err)
	}
	if _, err := Open(t.Context(), "b", "", &Options{Endpoint: "127.0.0.1:9000"}); !errors.Is(err, objstore.ErrInvalid) {
		t.Fatalf("Open with a relative endpoint: %v, want ErrInvalid", err)
	}
}

func TestLocation(t *testing.T) {
	for _, tc := range []struct {
		prefix, endpoint, region, want string
	}{
		{"", "http://127.0.0.1:9000", "us-east-1", "s3://bkt@http://127.0.0.1:9000"},
		{"a/b/", "http://127.0.0.1:9000", "", "s3://bkt/a/b@http://127.0.0.1:9000"},
		{"/a/", "", "eu-west-1", "s3://bkt/a@https://s3.eu-west-1.amazonaws.com"},
		{"", "", "", "s3://bkt@https://s3.amazonaws.com"},
		{"", "http://u:p@host:1", "", "s3://bkt@http://host:1"},
	} {
		o := s3.Options{Region: tc.region}
		if tc.endpoint != "" {
			o.BaseEndpoint = &tc.endpoint
		}
		if got := New(s3.New(o), "bkt", tc.prefix, nil).Location(); got != tc.want {
			t.Errorf("Location(prefix %q, endpoint %q, region %q) = %q, want %q", tc.prefix, tc.endpoint, tc.region, got, tc.want)
		}
	}
}

func TestMutuallyExclusivePreconditions(t *testing.T) {
	b := New(s3.New(s3.Options{Region: "us-east-1"}), "b", "", nil)
	_, err := b.Put(t.Context(), "k", strings.NewReader("x"), 1, objstore.PutOptions{IfMatch: `"x"`, IfNoneMatch: true})
	if !errors.Is(err, objstore.ErrInvalid) {
		t.Fatal(fmt.Sprint("Put with both preconditions: ", err))
	}
}
