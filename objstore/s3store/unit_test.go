package s3store

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/fencedstore/fence/rules"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
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
	b, err := New(s3.New(s3.Options{Region: "us-east-1"}), "bkt", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	s3test.ErrorClasses(t, sdkError, func(err error) error { return b.fail("put", "k", err) }, func(err, sdk error, code string) bool {
		var ae smithy.APIError
		return errors.As(err, &ae) && ae.ErrorCode() == code && errors.Is(err, sdk)
	})
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{
		{SSE: "aes256"},
		{SSE: "AES256", KMSKeyID: "k"},
		{KMSKeyID: "k"},
		{PartSize: 1 << 20},
		{MultipartThreshold: -1},
	} {
		if _, err := Open(t.Context(), "b", "", &o); !errors.Is(err, rules.ErrInvalid) {
			t.Errorf("Open(%+v): %v, want ErrInvalid", o, err)
		}
		if _, err := New(s3.New(s3.Options{Region: "us-east-1"}), "b", "", &o); !errors.Is(err, rules.ErrInvalid) {
			t.Errorf("New(%+v): %v, want ErrInvalid", o, err)
		}
	}
	if _, err := Open(t.Context(), "", "", nil); !errors.Is(err, rules.ErrInvalid) {
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
	if !errors.Is(err, rules.ErrInvalid) {
		t.Fatalf("Open with credentials in the endpoint: %v, want ErrInvalid", err)
	}
	if strings.Contains(err.Error(), "secret123") || strings.Contains(err.Error(), "AKIAEXAMPLE") {
		t.Fatalf("the error repeats the credentials: %v", err)
	}
	if _, err := Open(t.Context(), "b", "", &Options{Endpoint: "127.0.0.1:9000"}); !errors.Is(err, rules.ErrInvalid) {
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
		b, err := New(s3.New(o), "bkt", tc.prefix, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Location(); got != tc.want {
			t.Errorf("Location(prefix %q, endpoint %q, region %q) = %q, want %q", tc.prefix, tc.endpoint, tc.region, got, tc.want)
		}
	}
}

func TestRefusedReplies(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	s3test.RefusedReplies(t, openFake)
}

// TestCheckKeyCountsPrefix: the backend is a driver.KeyChecker that
// counts its prefix towards S3's 1024 bytes.
func TestCheckKeyCountsPrefix(t *testing.T) {
	s3test.CheckKeyCountsPrefix(t, func(t *testing.T, prefix string) driver.Backend { return prefixed(t, prefix) })
}

func prefixed(t *testing.T, prefix string) *Backend {
	b, err := New(s3.New(s3.Options{Region: "us-east-1"}), "bkt", prefix, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEarlyRefusal: a PutObject the store refuses from its headers
// reports ErrPreconditionFailed, not a connection reset; it fails
// without expectContinue.
func TestEarlyRefusal(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	s3test.EarlyRefusal(t, openFake)
}

// openFake opens a backend on bucket "bucket" at the fake server at
// endpoint, with short timeouts.
func openFake(t *testing.T, endpoint string) driver.Backend {
	b, err := Open(t.Context(), "bucket", "", &Options{Endpoint: endpoint, Region: "us-east-1", PathStyle: true, Timeouts: s3test.ShortTimeouts})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
