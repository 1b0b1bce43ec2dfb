package policy_test

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/s3store"
	"github.com/fencedstore/fence/policy"
)

// actionOf maps each API operation fence's clients call to the IAM
// action that authorizes it.
var actionOf = map[string]string{
	"GetObject":               "s3:GetObject",
	"HeadObject":              "s3:GetObject",
	"PutObject":               "s3:PutObject",
	"CreateMultipartUpload":   "s3:PutObject",
	"UploadPart":              "s3:PutObject",
	"CompleteMultipartUpload": "s3:PutObject",
	"AbortMultipartUpload":    "s3:AbortMultipartUpload",
	"DeleteObject":            "s3:DeleteObject",
	"ListObjectsV2":           "s3:ListBucket",
	"GetItem":                 "dynamodb:GetItem",
	"UpdateItem":              "dynamodb:UpdateItem",
	"PutItem":                 "dynamodb:PutItem",
	"DeleteItem":              "dynamodb:DeleteItem",
	"DescribeTable":           "dynamodb:DescribeTable",
}

type call struct {
	role, op, action, resource, listPrefix string
	ifMatch, ifNoneMatch                   bool // the conditional headers of a PutObject or CompleteMultipartUpload
}

// recorder notes every operation the clients send, under the role of the
// moment.
type recorder struct {
	mu     sync.Mutex
	role   string
	table  string
	bucket string
	calls  []call
}

func (r *recorder) as(role string) { r.mu.Lock(); r.role = role; r.mu.Unlock() }

func (r *recorder) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("FenceRecordCalls", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		op := awsmiddleware.GetOperationName(ctx)
		r.mu.Lock()
		c := call{role: r.role, op: op, action: actionOf[op]}
		switch {
		case strings.HasPrefix(c.action, "dynamodb:"):
			c.resource = "arn:aws:dynamodb:us-east-1:123456789012:table/" + r.table
		case op == "ListObjectsV2":
			c.resource, c.listPrefix = "arn:aws:s3:::"+r.bucket, field(in.Parameters, "Prefix")
		default:
			c.resource = "arn:aws:s3:::" + r.bucket + "/" + field(in.Parameters, "Key")
		}
		c.ifMatch, c.ifNoneMatch = field(in.Parameters, "IfMatch") != "", field(in.Parameters, "IfNoneMatch") != ""
		r.calls = append(r.calls, c)
		r.mu.Unlock()
		return next.HandleInitialize(ctx, in)
	}), middleware.Before)
}

// field returns the string field name of the input struct p points to.
func field(p any, name string) string {
	v := reflect.ValueOf(p)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	f := v.FieldByName(name)
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return ""
	}
	return f.Elem().String()
}

// TestIAMPoliciesMatchCalls runs what each role does (a writer's leases,
// commits of every size, a failed multipart upload, a takeover; a
// reader's reads; a collection) against MinIO and dynalite, records
// every operation the S3 and DynamoDB clients send, and checks each
// role's policy: every call is allowed on its resource, and every
// action the policy grants was called. No action is a wildcard.
func TestIAMPoliciesMatchCalls(t *testing.T) {
	s3ep, dynep := os.Getenv("FENCE_TEST_S3_ENDPOINT"), os.Getenv("FENCE_TEST_DYNAMODB_ENDPOINT")
	if s3ep == "" || dynep == "" {
		t.Skip("FENCE_TEST_S3_ENDPOINT and FENCE_TEST_DYNAMODB_ENDPOINT are not set; bash deploy/local/test.sh sets them")
	}
	ctx := t.Context()
	suffix := strings.ToLower(strings.ReplaceAll(time.Now().Format("150405.000000"), ".", ""))
	rec := &recorder{role: "admin", bucket: "fence-iam-" + suffix, table: "fence-iam-" + suffix}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion("us-east-1"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.APIOptions = append(cfg.APIOptions, rec.middleware)
	s3c := s3.NewFromConfig(cfg, func(o *s3.Options) { o.BaseEndpoint = aws.String(s3ep); o.UsePathStyle = true })
	dyn := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(dynep) })
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(rec.bucket)}); err != nil {
		t.Fatal(err)
	}
	if err := dynamocoord.CreateTable(ctx, dyn, rec.table); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = dyn.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(rec.table)})
	})
	const prefix = "tenant"
	exerciseRoles(t, roleRig{
		as: rec.as,
		open: func(plain bool) (*objstore.Store, *coord.Coordinator) {
			b, err := s3store.New(s3c, rec.bucket, prefix, &s3store.Options{PartSize: s3store.MinPartSize, MultipartThreshold: s3store.MinPartSize})
			if err != nil {
				t.Fatal(err)
			}
			d, err := dynamocoord.New(dyn, rec.table, nil)
			if err != nil {
				t.Fatal(err)
			}
			c := coord.New(d)
			return objstore.New(b, &objstore.Options{Issuer: fence.Issuer(c), PlainCopies: plain}), c
		},
		part: s3store.MinPartSize,
		deleteFloor: func(domain string) {
			if _, err := s3c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(rec.bucket), Key: aws.String(prefix + "/" + domain + "/_fence/floor.json")}); err != nil {
				t.Fatal(err)
			}
		},
	})

	rec.mu.Lock()
	calls := slices.Clone(rec.calls)
	rec.mu.Unlock()

	// Fence's bucket policy refuses none of the writes fence made.
	bp := policy.Bucket("", rec.bucket, prefix)
	creations := 0
	for _, c := range calls {
		if c.role == "admin" || (c.op != "PutObject" && c.op != "CompleteMultipartUpload") {
			continue
		}
		creations++
		for _, st := range bp.Statement {
			if !slices.ContainsFunc(st.Resource, func(r string) bool { return policy.Match(r, c.resource) }) {
				continue
			}
			null := st.Condition["Null"]
			_, needMatch := null["s3:if-match"]
			_, needNone := null["s3:if-none-match"]
			if (!needMatch || !c.ifMatch) && (!needNone || !c.ifNoneMatch) {
				t.Errorf("%s: %s of %s (If-Match %v, If-None-Match %v) would be refused by bucket policy statement %s", c.role, c.op, c.resource, c.ifMatch, c.ifNoneMatch, st.Sid)
			}
		}
	}
	if creations < 10 {
		t.Fatalf("only %d object creations recorded", creations)
	}
	for _, role := range []string{"writer", "writer+plain", "reader", "gc"} {
		target := policy.Target{Bucket: rec.bucket, Prefix: prefix, Table: rec.table, PlainCopies: strings.HasSuffix(role, "+plain")}
		if role == "gc" {
			target.Table = ""
		}
		doc, err := policy.IAM(policy.Role(strings.TrimSuffix(role, "+plain")), target)
		if err != nil {
			t.Fatal(err)
		}
		used := map[string]bool{}
		for _, c := range calls {
			if c.role != role {
				continue
			}
			if c.action == "" {
				t.Errorf("%s: operation %s has no IAM action in this test's map", role, c.op)
				continue
			}
			used[c.action] = true
			if c.op == "ListObjectsV2" && !strings.HasPrefix(c.listPrefix, prefix+"/") && c.role != "admin" {
				t.Errorf("%s: a list of prefix %q, outside the store's prefix %q/, which the policy's s3:prefix condition refuses", role, c.listPrefix, prefix)
			}
			if !doc.Allows(c.action, c.resource) {
				t.Errorf("%s: %s (%s on %s) is not allowed by its policy", role, c.op, c.action, c.resource)
			}
		}
		for _, a := range doc.Actions() {
			if strings.Contains(a, "*") {
				t.Errorf("%s: wildcard action %s", role, a)
			}
			if role == "writer+plain" {
				continue // a short session: only that its deletes are allowed, below
			}
			if !used[a] {
				t.Errorf("%s: the policy grants %s, which no call of the role used", role, a)
			}
		}
		if role == "writer+plain" && !slices.ContainsFunc(calls, func(c call) bool {
			return c.role == role && c.op == "DeleteObject" && strings.HasSuffix(c.resource, "/plain/k")
		}) {
			t.Errorf("the writer with plain copies deleted no plain copy")
		}
		t.Logf("%s: %d calls, actions %v", role, countRole(calls, role), doc.Actions())
	}
}

func countRole(calls []call, role string) int {
	n := 0
	for _, c := range calls {
		if c.role == role {
			n++
		}
	}
	return n
}
