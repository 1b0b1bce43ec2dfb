package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/internal/dynamotest"
	"github.com/fencedstore/fence/objstore/s3store"
)

// The real servers these tests run the fence binary against, started by
// deploy/local/servers.sh (which also sets AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_REGION).
const (
	s3EndpointEnv     = "FENCE_TEST_S3_ENDPOINT"       // MinIO, http://127.0.0.1:PORT
	dynamoEndpointEnv = "FENCE_TEST_DYNAMODB_ENDPOINT" // dynalite, http://127.0.0.1:PORT
)

// endpoints returns the S3 and DynamoDB endpoints the test needs, or
// skips it naming the variables that are unset.
func endpoints(t *testing.T, needS3, needDynamo bool) (s3ep, dynep string) {
	t.Helper()
	s3ep, dynep = os.Getenv(s3EndpointEnv), os.Getenv(dynamoEndpointEnv)
	var missing []string
	if needS3 && s3ep == "" {
		missing = append(missing, s3EndpointEnv+" (an S3-compatible endpoint such as MinIO, with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
	}
	if needDynamo && dynep == "" {
		missing = append(missing, dynamoEndpointEnv+" (a DynamoDB endpoint such as dynalite)")
	}
	if len(missing) > 0 {
		t.Skipf("fence CLI against real servers: %s not set; bash deploy/local/test.sh starts MinIO and dynalite and sets them", strings.Join(missing, " and "))
	}
	if os.Getenv("AWS_REGION") == "" {
		t.Setenv("AWS_REGION", "us-east-1")
	}
	return s3ep, dynep
}

// unique returns prefix followed by random hex: a fresh bucket or table
// name.
func unique(prefix string) string {
	var b [6]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// removeBucket deletes bucket and its objects when t ends (best effort:
// the servers' data is temporary anyway).
func removeBucket(t *testing.T, endpoint, bucket string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		b, err := s3store.Open(ctx, bucket, "", &s3store.Options{Endpoint: endpoint, PathStyle: true})
		if err != nil {
			t.Logf("cleanup: %v", err)
			return
		}
		c, bk := b.Client(), aws.String(bucket)
		for range 5 {
			out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: bk})
			if err != nil || len(out.Contents) == 0 {
				break
			}
			for _, o := range out.Contents {
				c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: bk, Key: o.Key})
			}
		}
		if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: bk}); err != nil {
			t.Logf("cleanup: delete bucket %s: %v", bucket, err)
		}
	})
}

// removeTable deletes table when t ends (best effort).
func removeTable(t *testing.T, endpoint, table string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		client, err := dynamocoord.NewClient(ctx, &dynamocoord.OpenOptions{Endpoint: endpoint})
		if err == nil {
			_, err = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
		}
		if err != nil {
			t.Logf("cleanup: delete table %s: %v", table, err)
		}
	})
}

// The "Done when" with --store s3://... (aws-sdk-go-v2) and
// --coord dynamodb://..., once per DynamoDB implementation (dynalite and
// AWS's DynamoDB Local).
func TestServersS3AndDynamoDB(t *testing.T) { dynamotest.Run(t, testServersS3AndDynamoDB) }

func testServersS3AndDynamoDB(t *testing.T, dynep string) {
	s3ep, _ := endpoints(t, true, false)
	bucket, table := unique("fence-cli-s3-"), unique("fence-cli-")
	c := newCLI(t)
	c.store = "s3://" + bucket + "/tenant?endpoint=" + s3ep + "&path_style=true"
	c.global = []string{"--coord", "dynamodb://" + table + "?endpoint=" + dynep}
	removeBucket(t, s3ep, bucket)
	removeTable(t, dynep, table)
	newUserSequence(t, c, []string{"bucket " + bucket, "table " + table},
		"store reachable", "bucket exists", "conditional writes honoured", "warn  bucket policy requires conditional writes",
		"coordinator reachable", "table exists with the right schema", "test acquisition and release")
}

// The same with --store minio://... (minio-go) and bucket leases kept in
// the store.
func TestServersMinIO(t *testing.T) {
	s3ep, _ := endpoints(t, true, false)
	bucket := unique("fence-cli-minio-")
	c := newCLI(t)
	c.store = "minio://" + bucket + "?endpoint=" + s3ep
	removeBucket(t, s3ep, bucket)
	newUserSequence(t, c, []string{"bucket " + bucket},
		"store reachable", "bucket exists", "conditional writes honoured", "skip  bucket policy requires conditional writes",
		"coordinator reachable", "test acquisition and release")
}

// newUserSequence is what a new user runs: doctor (which fails before
// init), init twice, doctor, demo, then the stale-holder sequence.
// things are what init creates, the store's bucket first ("bucket NAME",
// "container NAME").
func newUserSequence(t *testing.T, c *cli, things []string, checks ...string) {
	r := c.want(exitError, "", "doctor")
	kind, _, _ := strings.Cut(things[0], " ")
	if !strings.Contains(r.stdout, "FAIL  "+kind+" exists: "+kind+" ") || !strings.Contains(r.stdout, "fence init") {
		t.Errorf("doctor before init: stdout does not report the missing %s:\n%s", kind, r.stdout)
	}

	r = c.want(0, "", "init")
	for _, thing := range things {
		if !strings.Contains(r.stdout, "created  "+thing+" (") {
			t.Errorf("first init: stdout does not say %q was created:\n%s", thing, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, "\n"); n != len(things) {
		t.Errorf("first init printed %d lines, want %d:\n%s", n, len(things), r.stdout)
	}
	r = c.want(0, "", "init")
	for _, thing := range things {
		if !strings.Contains(r.stdout, "exists   "+thing+" (") {
			t.Errorf("second init: stdout does not say %q exists:\n%s", thing, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "created") {
		t.Errorf("second init created something:\n%s", r.stdout)
	}

	r = c.want(0, "", "doctor")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != len(checks) {
		t.Fatalf("doctor printed %d lines, want %d:\n%s", len(lines), len(checks), r.stdout)
	}
	// A check is expected ok unless written with its status, as
	// "warn  name" or "skip  name".
	status := func(check string) (string, string) {
		for _, st := range []string{"warn", "skip"} {
			if name, ok := strings.CutPrefix(check, st+"  "); ok {
				return st, name
			}
		}
		return "ok", check
	}
	for i, check := range checks {
		if st, name := status(check); !strings.HasPrefix(lines[i], fmt.Sprintf("%-6s%s", st, name)) {
			t.Errorf("doctor line %d = %q, want %s %q", i+1, lines[i], st, name)
		}
	}
	r = c.want(0, "", "doctor", "--json")
	var got []struct{ Name, Status, Detail string }
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got) != len(checks) {
		t.Fatalf("doctor --json printed %q (%v), want %d checks", r.stdout, err, len(checks))
	}
	for i, ch := range got {
		if st, name := status(checks[i]); ch.Status != st || ch.Name != name {
			t.Errorf("doctor --json: %+v, want %s %q", ch, st, name)
		}
	}

	r = c.want(0, "", "demo")
	if !strings.Contains(r.stdout, "OK: holder A's stale write") {
		t.Errorf("demo:\n%s", r.stdout)
	}
	staleTokenRejected(t, c)
}

// doctor fails, naming the table, when the dynamodb:// table was never
// created; and the lease commands say how to create it.
func TestServersDoctorMissingTable(t *testing.T) { dynamotest.Run(t, testServersDoctorMissingTable) }

func testServersDoctorMissingTable(t *testing.T, dynep string) {
	endpoints(t, false, false) // sets AWS_REGION if need be
	c := newCLI(t)             // a local directory as the store
	table := unique("fence-never-created-")
	c.global = []string{"--coord", "dynamodb://" + table + "?endpoint=" + dynep}
	r := c.want(exitError, "", "doctor")
	for _, want := range []string{
		"ok    store reachable",
		"ok    conditional writes honoured",
		"ok    coordinator reachable (dynamodb://" + table + "@" + dynep + ")",
		"FAIL  table exists with the right schema: dynamocoord: check table: table \"" + table + "\" not found",
		"skip  test acquisition and release: the coordinator is not usable",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor stdout does not contain %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "doctor: 1 of 6 checks failed") {
		t.Errorf("doctor stderr %q", r.stderr)
	}
	r = c.want(exitError, "", "lease", "acquire", "d")
	if !strings.Contains(r.stderr, "not found") || !strings.Contains(r.stderr, "fence init") {
		t.Errorf("lease acquire with a missing table: stderr %q", r.stderr)
	}
}
