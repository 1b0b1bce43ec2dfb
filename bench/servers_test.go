package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
)

// Environment the server tests read; deploy/local/test.sh sets them.
const (
	s3EndpointEnv     = "FENCE_TEST_S3_ENDPOINT"
	dynamoEndpointEnv = "FENCE_TEST_DYNAMODB_ENDPOINT"
)

// TestRunAgainstServers runs every case with tiny sizes against a real
// MinIO, through s3store and through miniostore, each under a key prefix
// of a fresh bucket, with a DynamoDB coordinator on dynalite when its
// endpoint is set. The bucket must be empty afterwards.
func TestRunAgainstServers(t *testing.T) {
	ep := os.Getenv(s3EndpointEnv)
	if ep == "" {
		t.Skipf("bench: %s is not set; set it to an S3-compatible endpoint such as http://127.0.0.1:9000 (MinIO), with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (deploy/local/test.sh does), to run against a real store", s3EndpointEnv)
	}
	ctx := t.Context()
	var rnd [6]byte
	rand.Read(rnd[:])
	bucket := "fence-bench-" + hex.EncodeToString(rnd[:])
	opts := &s3store.Options{Endpoint: ep, Region: "us-east-1", PathStyle: true}
	s3b, err := s3store.Open(ctx, bucket, "via-s3", opts)
	if err != nil {
		t.Fatal(err)
	}
	client := s3b.Client()
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
	t.Cleanup(func() { removeBucket(t, client, bucket) })
	mb, err := miniostore.Open(ep, bucket, "via-minio", nil)
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, url string
		b         driver.Backend
	}{
		{"s3store", "s3://" + bucket + "/via-s3?endpoint=" + ep + "&region=us-east-1&path_style=true", s3b},
		{"miniostore", "minio://" + bucket + "/via-minio?endpoint=" + ep, mb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tiny(tc.b)
			if dep := os.Getenv(dynamoEndpointEnv); dep != "" {
				var table string
				cfg.Coordinator, cfg.DynamoDB, table = dynamoCoordinator(t, dep)
				cfg.CoordURL = "dynamodb://" + table + "?endpoint=" + dep + "&region=us-east-1"
			}
			// The process rows run whole fence processes.
			cfg.CLI, cfg.StoreURL, cfg.ProcessIterations = fenceCLI(t), tc.url, 2
			rep, err := Run(ctx, cfg, io.Discard)
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, rep.Table())
			}
			checkReport(t, rep, true, true)
			if !strings.Contains(rep.Plain, "on the backend's own") {
				t.Errorf("plain baseline %q is not the backend's SDK client", rep.Plain)
			}
			if keys := listBucket(t, client, bucket); len(keys) != 0 {
				t.Errorf("cleanup left %d objects, for example %q", len(keys), keys[0])
			}
			t.Log("\n" + rep.Table())
		})
	}
}

// dynamoCoordinator returns a coordinator on a fresh dynalite table,
// deleted when t ends, its client and the table's name.
func dynamoCoordinator(t *testing.T, endpoint string) (*coord.Coordinator, *dynamodb.Client, string) {
	t.Helper()
	client, err := dynamocoord.NewClient(t.Context(), &dynamocoord.OpenOptions{Endpoint: endpoint, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	table := "fence-bench-" + hex.EncodeToString(rnd[:])
	if err := dynamocoord.CreateTable(t.Context(), client, table); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table)})
		if err != nil {
			t.Errorf("scan %s: %v", table, err)
		} else if len(out.Items) != 0 {
			t.Errorf("cleanup left %d items in table %s", len(out.Items), table)
		}
		if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
			t.Errorf("delete table %s: %v", table, err)
		}
	})
	d, err := dynamocoord.New(client, table, nil)
	if err != nil {
		t.Fatal(err)
	}
	return coord.New(d), client, table
}

// listBucket returns every key in bucket.
func listBucket(t *testing.T, c *s3.Client, bucket string) []string {
	t.Helper()
	var keys []string
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.WithoutCancel(t.Context()))
		if err != nil {
			t.Fatalf("list %s: %v", bucket, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys
}

// removeBucket deletes what is left in bucket, and the bucket.
func removeBucket(t *testing.T, c *s3.Client, bucket string) {
	ctx := context.WithoutCancel(t.Context())
	for _, k := range listBucket(t, c, bucket) {
		c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)})
	}
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Errorf("delete bucket %s: %v", bucket, err)
	}
}
