package clients

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

const s3EndpointEnv = "FENCE_TEST_S3_ENDPOINT" // MinIO, http://127.0.0.1:PORT (deploy/local/servers.sh)

// minioTarget is MinIO itself: CMD runs directly, with the contract
// pointing at MinIO over plain HTTP (MinIO here has no TLS) and the
// credentials of this process's environment, in a fresh bucket per run.
type minioTarget struct {
	endpoint          string
	accessKey, secret string
	client            *minio.Client
}

// newMinioTarget returns the MinIO target, or skips t when
// FENCE_TEST_S3_ENDPOINT or the credentials are unset.
func newMinioTarget(t *testing.T) *minioTarget {
	t.Helper()
	ep := os.Getenv(s3EndpointEnv)
	if ep == "" {
		t.Skipf("needs MinIO: set %s (bash deploy/local/test.sh starts it and sets it)", s3EndpointEnv)
	}
	key, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if key == "" || secret == "" {
		t.Fatalf("%s is set but AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not: MinIO's credentials come from them", s3EndpointEnv)
	}
	u, err := url.Parse(ep)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		t.Fatalf("%s=%q is not an http:// or https:// URL", s3EndpointEnv, ep)
	}
	c, err := minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(key, secret, ""),
		Secure:       u.Scheme == "https",
		Region:       "us-east-1",
		BucketLookup: minio.BucketLookupPath,
	})
	if err != nil {
		t.Fatalf("minio-go client for %s: %v", ep, err)
	}
	return &minioTarget{endpoint: ep, accessKey: key, secret: secret, client: c}
}

func (m *minioTarget) open(t *testing.T, client string) run {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	bucket := "fence-clients-" + hex.EncodeToString(b[:])
	ctx := context.Background()
	if err := m.client.MakeBucket(ctx, bucket, minio.MakeBucketOptions{Region: "us-east-1"}); err != nil {
		t.Fatalf("making bucket %s on MinIO: %v", bucket, err)
	}
	t.Cleanup(func() { m.removeBucket(t, bucket) })
	return &minioRun{m: m, bucket: bucket, pfx: "gw/" + client + "/", endpoint: m.endpoint}
}

// removeBucket removes every object and unfinished upload of bucket,
// then the bucket.
func (m *minioTarget) removeBucket(t *testing.T, bucket string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for up := range m.client.ListIncompleteUploads(ctx, bucket, "", true) {
		if up.Err == nil {
			_ = m.client.RemoveIncompleteUpload(ctx, bucket, up.Key)
		}
	}
	objs := m.client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true})
	for e := range m.client.RemoveObjects(ctx, bucket, objs, minio.RemoveObjectsOptions{}) {
		t.Logf("removing %s from bucket %s: %v", e.ObjectName, bucket, e.Err)
	}
	if err := m.client.RemoveBucket(ctx, bucket); err != nil {
		t.Logf("removing bucket %s: %v", bucket, err)
	}
}

type minioRun struct {
	m      *minioTarget
	bucket string
	pfx    string
	// endpoint and caBundle are what the contract names: MinIO's
	// endpoint, or a proxy's in front of it (proxyTarget).
	endpoint, caBundle string
}

func (r *minioRun) prefix() string { return r.pfx }

func (r *minioRun) command(ctx context.Context, argv []string, extra []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = contract{
		Endpoint:  r.endpoint,
		CABundle:  r.caBundle,
		AccessKey: r.m.accessKey,
		SecretKey: r.m.secret,
		Region:    "us-east-1",
		Bucket:    r.bucket,
		Prefix:    r.pfx,
	}.environ(extra)
	return cmd
}

func (r *minioRun) read(ctx context.Context, key string) ([]byte, error) {
	o, err := r.m.client.GetObject(ctx, r.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, err
	}
	defer o.Close()
	b, err := io.ReadAll(o)
	if minio.ToErrorResponse(err).Code == "NoSuchKey" {
		return nil, fmt.Errorf("%s: %w", key, errNotFound)
	}
	return b, err
}

func (r *minioRun) keys(ctx context.Context) ([]string, error) {
	var keys []string
	for o := range r.m.client.ListObjects(ctx, r.bucket, minio.ListObjectsOptions{Prefix: r.pfx, Recursive: true}) {
		if o.Err != nil {
			return nil, o.Err
		}
		keys = append(keys, o.Key)
	}
	return keys, nil
}
