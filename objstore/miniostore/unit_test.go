package miniostore

import (
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/rules"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3test"
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
	b, err := New(testClient(t), "bkt", "")
	if err != nil {
		t.Fatal(err)
	}
	s3test.ErrorClasses(t, func(status int, code string) error {
		return minio.ErrorResponse{StatusCode: status, Code: code, Message: "test"}
	}, func(err error) error { return b.fail("put", "k", err) }, func(err, _ error, code string) bool {
		var er minio.ErrorResponse
		return errors.As(err, &er) && er.Code == code
	})
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{
		{SSE: "aes256"},
		{SSE: "AES256", KMSKeyID: "k"},
		{KMSKeyID: "k"},
		{PartSize: 1 << 20},
		{SinglePutMax: -1},
		{SinglePutMax: MaxSinglePut + 1},
		{PartConcurrency: -1},
	} {
		if _, err := Open("127.0.0.1:9", "b", "", &o); !errors.Is(err, rules.ErrInvalid) {
			t.Errorf("Open(%+v): %v, want ErrInvalid", o, err)
		}
	}
	if _, err := Open("127.0.0.1:9", "", "", nil); !errors.Is(err, rules.ErrInvalid) {
		t.Errorf("Open with no bucket: %v", err)
	}
	if _, err := New(testClient(t), "", ""); !errors.Is(err, rules.ErrInvalid) {
		t.Errorf("New with no bucket: %v, want ErrInvalid", err)
	}
	for _, o := range []Options{{SSE: "aws:kms"}, {SSE: "aws:kms", KMSKeyID: "k"}, {SSE: "AES256"}, {PartSize: MinPartSize}, {SinglePutMax: 1}, {SinglePutMax: MaxSinglePut}, {PartConcurrency: 1}, {PartConcurrency: 64}} {
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
			if !errors.Is(err, rules.ErrInvalid) {
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
	b, err := New(testClient(t), "bkt", "/a/b/")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.Location(), "minio://bkt/a/b@http://127.0.0.1:9"; got != want {
		t.Errorf("Location() = %q, want %q", got, want)
	}
}

func TestRefusedReplies(t *testing.T) {
	s3test.RefusedReplies(t, openFake)
}

// TestCheckKeyCountsPrefix: the backend is a driver.KeyChecker that
// counts its prefix towards S3's 1024 bytes.
func TestCheckKeyCountsPrefix(t *testing.T) {
	s3test.CheckKeyCountsPrefix(t, func(t *testing.T, prefix string) driver.Backend { return prefixed(t, prefix) })
}

func prefixed(t *testing.T, prefix string) *Backend {
	b, err := New(testClient(t), "bkt", prefix)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEarlyRefusal: a PutObject the store refuses from its headers
// reports ErrPreconditionFailed, not a connection reset; it fails
// without expectContinue.
func TestEarlyRefusal(t *testing.T) {
	s3test.EarlyRefusal(t, openFake)
}

// openFake opens a backend on bucket "bucket" at the fake server at
// endpoint, with short timeouts.
func openFake(t *testing.T, endpoint string) driver.Backend {
	b, err := Open(endpoint, "bucket", "", &Options{Region: "us-east-1", Timeouts: s3test.ShortTimeouts})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
