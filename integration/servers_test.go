package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/azblobstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/gcsstore"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
)

// The real servers, started by deploy/local/test.sh (deploy/local/servers.sh).
const (
	s3EndpointEnv  = "FENCE_TEST_S3_ENDPOINT"
	dynEndpointEnv = "FENCE_TEST_DYNAMODB_ENDPOINT"
)

// servers returns the MinIO and dynalite endpoints, or skips the test.
func servers(t *testing.T) (s3URL, dynURL string) {
	t.Helper()
	s3URL, dynURL = os.Getenv(s3EndpointEnv), os.Getenv(dynEndpointEnv)
	if s3URL == "" || dynURL == "" {
		t.Skipf("needs MinIO and dynalite: set %s and %s (bash deploy/local/test.sh starts both and sets them)", s3EndpointEnv, dynEndpointEnv)
	}
	if os.Getenv("AWS_REGION") == "" {
		t.Setenv("AWS_REGION", "us-east-1")
	}
	return s3URL, dynURL
}

// s3Server returns the MinIO endpoint, or skips the test. Tests that
// run once per DynamoDB implementation find those with dynamotest.Run.
func s3Server(t *testing.T) string {
	t.Helper()
	s3URL := os.Getenv(s3EndpointEnv)
	if s3URL == "" {
		t.Skipf("needs MinIO: set %s (bash deploy/local/test.sh starts it and sets it)", s3EndpointEnv)
	}
	if os.Getenv("AWS_REGION") == "" {
		t.Setenv("AWS_REGION", "us-east-1")
	}
	return s3URL
}

func uniqueName(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// setup describes one backend/coordinator pairing a child process opens.
type setup struct {
	Backend  string // "s3" (aws-sdk-go-v2), "minio" (minio-go), "gs" (gcsstore) or "azblob" (azblobstore)
	Coord    string // "dynamodb" or "bucket"
	S3       string // endpoint
	GCS      string // fake-gcs-server's endpoint (Backend "gs")
	Azure    string // Azurite's endpoint (Backend "azblob"); the account and key are in the environment
	Dynamo   string // endpoint
	Bucket   string
	Table    string
	Domain   string
	TTLMilli int64
}

func (s setup) ttl() time.Duration { return time.Duration(s.TTLMilli) * time.Millisecond }

// open returns the store and coordinator that s names.
func (s setup) open(ctx context.Context, holder string) (*objstore.Store, *coord.Coordinator, error) {
	var b driver.Backend
	var err error
	switch s.Backend {
	case "s3":
		b, err = s3store.Open(ctx, s.Bucket, "", &s3store.Options{Endpoint: s.S3, Region: "us-east-1", PathStyle: true})
	case "minio":
		b, err = miniostore.Open(s.S3, s.Bucket, "", &miniostore.Options{Region: "us-east-1"})
	case "gs":
		b, err = gcsstore.Open(ctx, s.Bucket, "", &gcsstore.Options{Endpoint: s.GCS})
	case "azblob":
		b, err = azblobstore.Open(ctx, s.Bucket, "", &azblobstore.Options{Endpoint: s.Azure})
	}
	if err != nil {
		return nil, nil, err
	}
	var d coord.Driver = bucketlease.New(b, nil)
	if s.Coord != "bucket" {
		if d, err = dynamocoord.Open(ctx, s.Table, &dynamocoord.OpenOptions{Endpoint: s.Dynamo, Region: "us-east-1"}); err != nil {
			return nil, nil, err
		}
	}
	c := coord.New(d)
	return objstore.New(b, &objstore.Options{Holder: holder, Issuer: fence.Issuer(c)}), c, nil
}

// provision creates s's bucket and table, and removes them when t ends.
func provision(t *testing.T, s setup) {
	t.Helper()
	ctx := context.Background()
	switch s.Backend {
	case "gs":
		provisionGCS(t, s)
		return
	case "azblob":
		provisionAzure(t, s)
		return
	}
	b, err := s3store.Open(ctx, s.Bucket, "", &s3store.Options{Endpoint: s.S3, Region: "us-east-1", PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	client := b.Client()
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.Bucket)}); err != nil {
		t.Fatalf("create bucket %s: %v", s.Bucket, err)
	}
	t.Cleanup(func() { emptyAndRemoveBucket(t, client, s.Bucket) })
	if s.Coord != "dynamodb" {
		return
	}
	dyn, err := dynamocoord.NewClient(ctx, &dynamocoord.OpenOptions{Endpoint: s.Dynamo, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := dynamocoord.CreateTable(ctx, dyn, s.Table); err != nil {
		t.Fatalf("create table %s: %v", s.Table, err)
	}
	t.Cleanup(func() {
		_, _ = dyn.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(s.Table)})
	})
}

func emptyAndRemoveBucket(t *testing.T, c *s3.Client, bucket string) {
	ctx := context.Background()
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Logf("cleanup: list %s: %v", bucket, err)
			return
		}
		for _, o := range page.Contents {
			_, _ = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: o.Key})
		}
	}
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil && !strings.Contains(err.Error(), "NoSuchBucket") {
		t.Logf("cleanup: remove bucket %s: %v", bucket, err)
	}
}
