// Package s3test holds the test code that s3store (aws-sdk-go-v2) and
// miniostore (minio-go) share: the test endpoint, bucket names, and checks
// of behaviour both must show, each reaching the store through its own
// SDK by the callbacks it passes. Only their tests import it.
package s3test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/objstoretest"
	"github.com/fencedstore/fence/rules"
)

// A Server is one S3 implementation the tests run against.
type Server struct {
	// Name is "minio" or "versitygw": the subtest's name.
	Name string
	// Env is the variable that holds Endpoint.
	Env      string
	Endpoint string
	// Region is AWS_REGION, else us-east-1.
	Region string
}

// Servers are the S3 implementations the tests of s3store and miniostore
// run against, each at the endpoint its variable holds.
// deploy/local/servers.sh starts both and sets the variables.
var Servers = []Server{
	{Name: "minio", Env: "FENCE_TEST_S3_ENDPOINT"},
	{Name: "versitygw", Env: "FENCE_TEST_S3_ENDPOINT_VERSITYGW"},
}

// MinPartSize is the smallest part S3 accepts (all parts but the last).
const MinPartSize = 5 << 20

// EachServer runs fn as a subtest of t, named after the server, for each
// of Servers. A server whose variable is unset skips its subtest with a
// message naming the variable; pkg names the package in it.
func EachServer[T interface {
	testing.TB
	Run(string, func(T)) bool
}](t T, pkg string, fn func(t T, srv Server)) {
	t.Helper()
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = "us-east-1"
	}
	for _, srv := range Servers {
		t.Run(srv.Name, func(t T) {
			srv.Endpoint, srv.Region = os.Getenv(srv.Env), region
			if srv.Endpoint == "" {
				t.Skipf("%s: %s is not set; set it to the endpoint of a %s server such as http://127.0.0.1:9000, with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, to run the tests against it (bash deploy/local/test.sh starts one)", pkg, srv.Env, srv.Name)
			}
			fn(t, srv)
		})
	}
}

// BucketName returns prefix followed by 12 random hex digits.
func BucketName(prefix string) string {
	var r [6]byte
	rand.Read(r[:])
	return prefix + hex.EncodeToString(r[:])
}

// Conformance runs drivertest's backend suite on a plain backend, and
// under a prefix with the smallest parts, so that LargeObject's 9 MiB
// bodies (known and unknown size) take the multipart path; then the
// fencing suite. newBackend returns a backend over a fresh bucket, under
// prefix, with parts of partSize bytes (0: the default) and a multipart
// threshold of partSize.
func Conformance(t *testing.T, newBackend func(t *testing.T, prefix string, partSize int64) driver.Backend) {
	t.Run("Backend", func(t *testing.T) {
		drivertest.Run(t, func(t *testing.T) driver.Backend {
			return newBackend(t, "", 0)
		})
	})
	t.Run("PrefixedMultipart", func(t *testing.T) {
		drivertest.Run(t, func(t *testing.T) driver.Backend {
			return newBackend(t, "tenant/a", MinPartSize)
		})
	})
	t.Run("Store", func(t *testing.T) {
		objstoretest.RunStore(t, func(t *testing.T) driver.Backend {
			return newBackend(t, "", 0)
		})
	})
}

// Prefixed is a backend with a bucket and a key prefix.
type Prefixed interface {
	driver.Backend
	Bucket() string
	Prefix() string
}

// Prefix checks that b, made with prefix "/tenant/x/", writes under
// "tenant/x/", reports keys without it, and that its Location is
// wantLocation. get reads an object of the bucket by its full key,
// bypassing b.
func Prefix(t *testing.T, b Prefixed, wantLocation string, get func(key string) (string, error)) {
	t.Helper()
	if b.Prefix() != "tenant/x/" {
		t.Fatalf("Prefix() = %q", b.Prefix())
	}
	if b.Location() != wantLocation {
		t.Fatalf("Location() = %q, want %q", b.Location(), wantLocation)
	}
	ctx := t.Context()
	if _, err := b.Put(ctx, "k", strings.NewReader("v"), 1, driver.PutOptions{Mode: driver.Create{}}); err != nil {
		t.Fatal(err)
	}
	got, err := get("tenant/x/k")
	if err != nil {
		t.Fatalf("object not at tenant/x/k: %v", err)
	}
	if got != "v" {
		t.Fatalf("tenant/x/k = %q", got)
	}
	var keys []string
	if err := b.List(ctx, "", func(o driver.ObjectInfo) error { keys = append(keys, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys, []string{"k"}) {
		t.Fatalf("List = %q, want [k]", keys)
	}
}

// NoSuchBucket checks that b, opened on bucket, which does not exist,
// fails Put, Get and List with driver.ErrNoBucket, and not
// driver.ErrNotFound (a missing key or domain), naming the bucket.
func NoSuchBucket(t *testing.T, b driver.Backend, bucket string) {
	t.Helper()
	ctx := t.Context()
	_, err := b.Put(ctx, "k", strings.NewReader("x"), 1, driver.PutOptions{Mode: driver.Create{}})
	if !errors.Is(err, driver.ErrNoBucket) || errors.Is(err, driver.ErrNotFound) || !strings.Contains(err.Error(), `bucket "`+bucket+`" does not exist`) {
		t.Fatalf("Put to a missing bucket: %v", err)
	}
	_, _, err = b.Get(ctx, "k", driver.GetOptions{})
	if !errors.Is(err, driver.ErrNoBucket) || errors.Is(err, driver.ErrNotFound) || !strings.Contains(err.Error(), bucket) {
		t.Fatalf("Get from a missing bucket: %v", err)
	}
	err = b.List(ctx, "", func(driver.ObjectInfo) error { return nil })
	if !errors.Is(err, driver.ErrNoBucket) || errors.Is(err, driver.ErrNotFound) || !strings.Contains(err.Error(), bucket) {
		t.Fatalf("List of a missing bucket: %v", err)
	}
}

// Bucketer checks and creates its bucket.
type Bucketer interface {
	BucketExists(ctx context.Context) (bool, error)
	EnsureBucket(ctx context.Context) error
}

// EnsureBucket checks BucketExists and EnsureBucket on b, whose bucket
// does not exist yet: concurrent and repeated calls all succeed. Once
// BucketExists has reported the bucket missing, remove is registered to
// remove it when t ends.
func EnsureBucket(t *testing.T, b Bucketer, remove func()) {
	t.Helper()
	ctx := t.Context()
	if ok, err := b.BucketExists(ctx); err != nil || ok {
		t.Fatalf("BucketExists before creation = %t, %v; want false, nil", ok, err)
	}
	t.Cleanup(remove)
	// Concurrent and repeated calls all succeed.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = b.EnsureBucket(ctx) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("EnsureBucket #%d: %v", i, err)
		}
	}
	if err := b.EnsureBucket(ctx); err != nil {
		t.Fatalf("EnsureBucket on an existing bucket: %v", err)
	}
	if ok, err := b.BucketExists(ctx); err != nil || !ok {
		t.Fatalf("BucketExists after creation = %t, %v; want true, nil", ok, err)
	}
}

// UnreachableBucket is the bucket name BucketErrors expects unreachable
// to be opened with.
const UnreachableBucket = "fence-unreachable"

// BucketErrors checks that BucketExists and EnsureBucket fail, with ctx,
// on unreachable, opened on UnreachableBucket at an endpoint nothing
// listens on (an error, not "missing"), and on bad, made with an empty
// bucket name (without a request).
func BucketErrors(t *testing.T, ctx context.Context, unreachable Bucketer, newEmpty error) {
	t.Helper()
	if ok, err := unreachable.BucketExists(ctx); err == nil || ok {
		t.Fatalf("BucketExists on a closed port = %t, %v; want an error", ok, err)
	}
	if err := unreachable.EnsureBucket(ctx); err == nil || !strings.Contains(err.Error(), UnreachableBucket) {
		t.Fatalf("EnsureBucket on a closed port: %v", err)
	}
	if !errors.Is(newEmpty, rules.ErrInvalid) {
		t.Fatalf("New with an empty bucket name: %v, want ErrInvalid", newEmpty)
	}
}

// SSE checks that server-side encryption settings reach the store on
// both write paths: SSE-S3 ("AES256") always, SSE-KMS ("aws:kms") when
// FENCE_TEST_S3_KMS_KEY_ID names a key. It skips a case when the store
// answers NotImplemented (MinIO needs MINIO_KMS_SECRET_KEY or a KMS
// server for either). On versitygw, which accepts the header, stores the
// object unencrypted and reports no encryption, it checks exactly that
// (fence doctor fails such a store; see docs/stores.md): should versitygw
// start encrypting, the case fails, and the table there is out of date.
//
// newBackend returns a backend over a fresh bucket, without a prefix,
// with parts of MinPartSize bytes and a multipart threshold of
// MinPartSize, and the given SSE and KMSKeyID options. code returns the
// S3 error code of an error. head returns the encryption and KMS key id
// the store reports for an object.
func SSE[B driver.Backend](t *testing.T, srv Server, newBackend func(t *testing.T, sse, kmsKeyID string) B, code func(error) string, head func(t *testing.T, b B, key string) (sse, kmsKeyID string)) {
	type sseCase struct{ sse, kmsKeyID string }
	cases := []sseCase{{sse: "AES256"}}
	if id := os.Getenv("FENCE_TEST_S3_KMS_KEY_ID"); id != "" {
		cases = append(cases, sseCase{"aws:kms", id})
	}
	// Larger than one part, of unknown size: the multipart path.
	large := make([]byte, 6<<20)
	for i := range large {
		large[i] = byte(i*7 + i>>13)
	}
	for _, c := range cases {
		t.Run(c.sse, func(t *testing.T) {
			b := newBackend(t, c.sse, c.kmsKeyID)
			ctx := t.Context()
			_, err := b.Put(ctx, "small", strings.NewReader("x"), 1, driver.PutOptions{Mode: driver.Create{}})
			if err != nil && code(err) == "NotImplemented" {
				t.Skipf("the store does not support %s here: %v", c.sse, err)
			}
			if err != nil {
				t.Fatalf("Put with SSE: %v", err)
			}
			if _, err := b.Put(ctx, "large", struct{ io.Reader }{bytes.NewReader(large)}, -1, driver.PutOptions{Mode: driver.Create{}}); err != nil {
				t.Fatalf("multipart Put with SSE: %v", err)
			}
			want := c.sse
			if srv.Name == "versitygw" {
				want = "" // accepted, and ignored
			}
			for _, k := range []string{"small", "large"} {
				sse, kmsKeyID := head(t, b, k)
				if sse != want {
					t.Errorf("%s: server-side encryption = %q, want %q", k, sse, want)
				}
				if want != "" && c.kmsKeyID != "" && !strings.HasSuffix(kmsKeyID, c.kmsKeyID) {
					t.Errorf("%s: KMS key id = %q, want %q", k, kmsKeyID, c.kmsKeyID)
				}
			}
			if want == "" {
				t.Logf("%s accepted x-amz-server-side-encryption: %s and reports both objects unencrypted", srv.Name, c.sse)
			}
			mustGet(t, b, "small", []byte("x"))
			mustGet(t, b, "large", large)
		})
	}
}

func mustGet(t *testing.T, b driver.Backend, key string, want []byte) {
	t.Helper()
	rc, info, err := b.Get(t.Context(), key, driver.GetOptions{})
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil || !bytes.Equal(got, want) || info.Size != int64(len(want)) {
		t.Fatalf("Get(%q): %d bytes (info says %d), err %v; want the %d bytes written", key, len(got), info.Size, err, len(want))
	}
}

// ErrorClasses checks that fail, a backend's error wrapping for
// operation "put" of key "k" in bucket "bkt", classifies S3 error
// answers, which sdkError makes as its SDK reports them, into the
// objstore error classes; that the SDK's error stays in the chain, as
// inChain tells; and that NoSuchBucket names the bucket.
func ErrorClasses(t *testing.T, sdkError func(status int, code string) error, fail func(error) error, inChain func(err, sdk error, code string) bool) {
	for _, tc := range []struct {
		status int
		code   string
		want   error
	}{
		{412, "PreconditionFailed", driver.ErrPreconditionFailed},
		{409, "ConditionalRequestConflict", driver.ErrConflict},
		{404, "NoSuchKey", driver.ErrNotFound},
		{404, "NotFound", driver.ErrNotFound},
		{404, "NoSuchBucket", driver.ErrNoBucket},
		{404, "NoSuchUpload", nil},
		{409, "BucketAlreadyExists", nil},
		{503, "SlowDown", nil},
		{500, "InternalError", nil},
	} {
		sdk := sdkError(tc.status, tc.code)
		err := fail(sdk)
		for _, class := range []error{driver.ErrPreconditionFailed, driver.ErrConflict, driver.ErrNotFound, driver.ErrNoBucket} {
			if got := errors.Is(err, class); got != (class == tc.want) {
				t.Errorf("%d %s: errors.Is(%v) = %v", tc.status, tc.code, class, got)
			}
		}
		if !inChain(err, sdk, tc.code) {
			t.Errorf("%d %s: the SDK error is not in the chain: %v", tc.status, tc.code, err)
		}
		if tc.code == "NoSuchBucket" && !strings.Contains(err.Error(), `bucket "bkt" does not exist`) {
			t.Errorf("NoSuchBucket message does not name the bucket: %v", err)
		}
	}
}

// ProbeCost measures driver.Probe: each iteration probes a fresh
// location (a backend under a prefix of its own, which newBackend
// returns), so that no verdict is cached.
func ProbeCost(b *testing.B, newBackend func(prefix string) driver.Backend) {
	ctx := b.Context()
	run := BucketName("probe-")
	i := 0
	for b.Loop() {
		i++
		be := newBackend(fmt.Sprintf("%s-%d", run, i))
		if err := driver.Probe(ctx, be); err != nil {
			b.Fatal(err)
		}
	}
}
