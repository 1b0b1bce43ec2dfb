package policy_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"cloud.google.com/go/storage"
	azpolicy "github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"google.golang.org/api/option"

	"github.com/fencedstore/fence"
	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/azblobstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/gcsstore"
	"github.com/fencedstore/fence/policy"
	"github.com/fencedstore/fence/transport"
)

// cloudCall is one request a cloud SDK sent, under the role of the
// moment: the API operation it is and the permissions that operation
// needs, as the cloud documents them.
type cloudCall struct {
	role, op    string
	permissions []string
	status      int
}

// cloudRecorder notes every request that goes through it, as its
// classify function names it, under the role of the moment.
type cloudRecorder struct {
	mu       sync.Mutex
	role     string
	calls    []cloudCall
	unknown  []string
	classify func(*http.Request) (op string, permissions []string)
}

func (r *cloudRecorder) as(role string) { r.mu.Lock(); r.role = role; r.mu.Unlock() }

// record notes req and its answer.
func (r *cloudRecorder) record(req *http.Request, resp *http.Response) {
	op, perms := r.classify(req)
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if op == "" {
		r.unknown = append(r.unknown, fmt.Sprintf("%s: %s %s", r.role, req.Method, req.URL.RequestURI()))
		return
	}
	r.calls = append(r.calls, cloudCall{role: r.role, op: op, permissions: perms, status: status})
}

func (r *cloudRecorder) snapshot() ([]cloudCall, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls), slices.Clone(r.unknown)
}

// roundTripper records for an HTTP client (the GCS SDK).
type roundTripper struct {
	rec  *cloudRecorder
	base http.RoundTripper
}

func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.base.RoundTrip(req)
	rt.rec.record(req, resp)
	return resp, err
}

// transporter records for an Azure SDK pipeline.
type transporter struct {
	rec  *cloudRecorder
	base *http.Client
}

func (tr transporter) Do(req *http.Request) (*http.Response, error) {
	resp, err := tr.base.Do(req)
	tr.rec.record(req, resp)
	return resp, err
}

// GCS permissions of each JSON API method, from Google's table
// (https://cloud.google.com/storage/docs/access-control/iam-json), and of
// the XML API's GET and HEAD of an object, which the SDK reads through
// (https://cloud.google.com/storage/docs/access-control/iam-xml).
// objects.insert also needs storage.objects.delete when it replaces an
// object (https://cloud.google.com/storage/docs/json_api/v1/objects/insert):
// classifyGCS asks for it unless the insert carries ifGenerationMatch=0,
// which only creates.
func classifyGCS(bucket string) func(*http.Request) (string, []string) {
	return func(req *http.Request) (string, []string) {
		p, q := req.URL.EscapedPath(), req.URL.Query()
		object := func(rest string) bool { return rest != "" && !strings.Contains(rest, "/") }
		switch {
		case strings.HasPrefix(p, "/upload/storage/v1/b/"+bucket+"/o"):
			if q.Get("upload_id") != "" { // the later requests of a resumable upload
				return "objects.insert (resumable, " + req.Method + ")", []string{"storage.objects.create"}
			}
			if req.Method != http.MethodPost {
				return "", nil
			}
			if q.Get("ifGenerationMatch") == "0" {
				return "objects.insert (create only)", []string{"storage.objects.create"}
			}
			return "objects.insert (may replace)", []string{"storage.objects.create", "storage.objects.delete"}
		case p == "/storage/v1/b" && req.Method == http.MethodPost:
			return "buckets.insert", []string{"storage.buckets.create"}
		case p == "/storage/v1/b/"+bucket && req.Method == http.MethodGet:
			return "buckets.get", []string{"storage.buckets.get"}
		case p == "/storage/v1/b/"+bucket+"/o" && req.Method == http.MethodGet:
			return "objects.list", []string{"storage.objects.list"}
		case strings.HasPrefix(p, "/storage/v1/b/"+bucket+"/o/") && object(strings.TrimPrefix(p, "/storage/v1/b/"+bucket+"/o/")):
			switch req.Method {
			case http.MethodGet:
				return "objects.get", []string{"storage.objects.get"}
			case http.MethodDelete:
				return "objects.delete", []string{"storage.objects.delete"}
			}
		case strings.HasPrefix(p, "/"+bucket+"/") && (req.Method == http.MethodGet || req.Method == http.MethodHead):
			return "XML " + req.Method + " object", []string{"storage.objects.get"}
		}
		return "", nil
	}
}

// Azure RBAC actions of each Blob service operation, from Microsoft's
// table (https://learn.microsoft.com/en-us/rest/api/storageservices/authorize-with-azure-active-directory#permissions-for-blob-service-operations).
// Put Blob takes blobs/write "for create or replace"; blobs/add/action
// would only create.
func classifyAzure(req *http.Request) (string, []string) {
	q := req.URL.Query()
	restype, comp := q.Get("restype"), q.Get("comp")
	const blobs = "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/"
	const containers = "Microsoft.Storage/storageAccounts/blobServices/containers/"
	if restype == "container" {
		switch {
		case comp == "list" && req.Method == http.MethodGet:
			return "List Blobs", []string{blobs + "read"}
		case comp == "" && (req.Method == http.MethodGet || req.Method == http.MethodHead):
			return "Get Container Properties", []string{containers + "read"}
		case comp == "" && req.Method == http.MethodPut:
			return "Create Container", []string{containers + "write"}
		}
		return "", nil
	}
	switch {
	case comp == "" && req.Method == http.MethodGet:
		return "Get Blob", []string{blobs + "read"}
	case comp == "" && req.Method == http.MethodHead:
		return "Get Blob Properties", []string{blobs + "read"}
	case comp == "" && req.Method == http.MethodPut:
		return "Put Blob", []string{blobs + "write"}
	case comp == "block" && req.Method == http.MethodPut:
		return "Put Block", []string{blobs + "write"}
	case comp == "blocklist" && req.Method == http.MethodPut:
		return "Put Block List", []string{blobs + "write"}
	case comp == "" && req.Method == http.MethodDelete:
		return "Delete Blob", []string{blobs + "delete"}
	}
	return "", nil
}

// checkCloudRoles checks the recorded calls against each role's list
// (perms): every permission a call of the role needs is listed, and every
// listed permission was needed by some call (but for "writer+plain", a
// short session whose only point is that its deletes of plain copies are
// allowed). The "init" calls (fence init and doctor) must need only
// admin's and the writer's permissions, and use every one of admin's.
func checkCloudRoles(t *testing.T, calls []cloudCall, unknown []string, perms func(policy.Role) ([]policy.Permission, error), admin []policy.Permission) {
	t.Helper()
	for _, u := range unknown {
		t.Errorf("a request this test cannot map to its permissions: %s", u)
	}
	names := func(ps []policy.Permission) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	writer, err := perms(policy.Writer)
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"writer", "writer+plain", "reader", "gc", "init"} {
		var granted []string
		switch role {
		case "init":
			granted = append(names(admin), names(writer)...)
		default:
			ps, err := perms(policy.Role(strings.TrimSuffix(role, "+plain")))
			if err != nil {
				t.Fatal(err)
			}
			granted = names(ps)
		}
		used := map[string]bool{}
		ops := map[string]int{}
		n := 0
		for _, c := range calls {
			if c.role != role {
				continue
			}
			n++
			ops[c.op]++
			for _, p := range c.permissions {
				used[p] = true
				if !slices.Contains(granted, p) {
					t.Errorf("%s: %s (answered %d) needs %s, which the %s role does not list", role, c.op, c.status, p, role)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no calls recorded", role)
		}
		check := granted
		switch role {
		case "writer+plain":
			check = nil
		case "init":
			check = names(admin)
		}
		for _, p := range check {
			if strings.Contains(p, "*") {
				t.Errorf("%s: wildcard permission %s", role, p)
			}
			if !used[p] {
				t.Errorf("%s: the role lists %s, which no call of the role needed", role, p)
			}
		}
		t.Logf("%s: %d calls %v, permissions used %v", role, n, ops, slices.Sorted(maps.Keys(used)))
	}
	if !slices.ContainsFunc(calls, func(c cloudCall) bool {
		return c.role == "writer+plain" && slices.ContainsFunc(c.permissions, func(p string) bool { return strings.HasSuffix(p, "delete") })
	}) {
		t.Errorf("the writer with plain copies deleted nothing")
	}
}

func randomName(prefix string) string {
	var rnd [6]byte
	rand.Read(rnd[:])
	return prefix + hex.EncodeToString(rnd[:])
}

// storeOn returns a fenced store on b, keeping plain copies when plain,
// with bucket leases in b as its coordinator (the default on GCS and
// Azure).
func storeOn(b driver.Backend, plain bool) (*objstore.Store, *coord.Coordinator) {
	c := coord.New(bucketlease.New(b, nil))
	return objstore.New(b, &objstore.Options{Issuer: fence.Issuer(c), PlainCopies: plain}), c
}

// TestGCSRolesMatchCalls runs what each role does against
// fake-gcs-server through gcsstore, with bucket leases in the bucket,
// records every request the SDK sends, maps each to the permissions
// Google documents for it, and checks policy.GCSPermissions: every
// permission a role's calls need is listed, and every listed one was
// needed. fence init's and doctor's bucket calls are checked against
// policy.GCSAdmin the same way.
func TestGCSRolesMatchCalls(t *testing.T) {
	ep := os.Getenv("FENCE_TEST_GCS_ENDPOINT")
	if ep == "" {
		t.Skip("FENCE_TEST_GCS_ENDPOINT is not set; bash deploy/local/test.sh starts fake-gcs-server and sets it")
	}
	ctx := t.Context()
	bucket := randomName("fence-roles-")
	rec := &cloudRecorder{role: "init", classify: classifyGCS(bucket)}
	client, err := storage.NewClient(ctx, option.WithEndpoint(strings.TrimSuffix(ep, "/")+"/storage/v1/"), option.WithoutAuthentication(),
		option.WithHTTPClient(&http.Client{Transport: roundTripper{rec: rec, base: transport.Timeouts{}.Client().Transport}}))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	const prefix = "tenant"
	backend := func() *gcsstore.Backend {
		b, err := gcsstore.New(client, bucket, prefix, ep, &gcsstore.Options{ChunkSize: gcsstore.MinChunkSize})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// fence init and doctor.
	b := backend()
	if ok, err := b.BucketExists(ctx); err != nil || ok {
		t.Fatalf("BucketExists of a new bucket = %v, %v", ok, err)
	}
	if err := b.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rec.as("cleanup")
		ctx := context.WithoutCancel(t.Context())
		_ = backend().List(ctx, "", func(o driver.ObjectInfo) error { return backend().Delete(ctx, o.Key) })
		_ = client.Bucket(bucket).Delete(ctx)
	})

	exerciseRoles(t, roleRig{
		as:   rec.as,
		open: func(plain bool) (*objstore.Store, *coord.Coordinator) { return storeOn(backend(), plain) },
		part: gcsstore.MinChunkSize,
		deleteFloor: func(domain string) {
			if err := client.Bucket(bucket).Object(prefix + "/" + domain + "/_fence/floor.json").Delete(ctx); err != nil {
				t.Fatal(err)
			}
		},
	})
	calls, unknown := rec.snapshot()
	checkCloudRoles(t, calls, unknown, policy.GCSPermissions, policy.GCSAdmin())
}

// TestAzureRolesMatchCalls is TestGCSRolesMatchCalls on Azurite through
// azblobstore, against Microsoft's table of the RBAC actions of each
// Blob service operation, and policy.AzurePermissions and
// policy.AzureAdmin.
func TestAzureRolesMatchCalls(t *testing.T) {
	ep, account, key := os.Getenv("FENCE_TEST_AZURE_ENDPOINT"), os.Getenv("FENCE_TEST_AZURE_ACCOUNT"), os.Getenv("FENCE_TEST_AZURE_KEY")
	if ep == "" || account == "" || key == "" {
		t.Skip("FENCE_TEST_AZURE_ENDPOINT, FENCE_TEST_AZURE_ACCOUNT and FENCE_TEST_AZURE_KEY are not all set; bash deploy/local/test.sh starts Azurite and sets them")
	}
	ctx := t.Context()
	name := randomName("fence-roles-")
	rec := &cloudRecorder{role: "init", classify: classifyAzure}
	cred, err := container.NewSharedKeyCredential(account, key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := container.NewClientWithSharedKeyCredential(strings.TrimSuffix(ep, "/")+"/"+url.PathEscape(name), cred,
		&container.ClientOptions{ClientOptions: azpolicy.ClientOptions{Transport: transporter{rec: rec, base: transport.Timeouts{}.Client()}}})
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "tenant"
	const part = 256 << 10
	backend := func() *azblobstore.Backend {
		b, err := azblobstore.New(client, prefix, &azblobstore.Options{PartSize: part, MultipartThreshold: part})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// fence init and doctor.
	b := backend()
	if ok, err := b.ContainerExists(ctx); err != nil || ok {
		t.Fatalf("ContainerExists of a new container = %v, %v", ok, err)
	}
	if err := b.EnsureContainer(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rec.as("cleanup")
		_, _ = client.Delete(context.WithoutCancel(t.Context()), nil)
	})

	exerciseRoles(t, roleRig{
		as:   rec.as,
		open: func(plain bool) (*objstore.Store, *coord.Coordinator) { return storeOn(backend(), plain) },
		part: part,
		deleteFloor: func(domain string) {
			if _, err := client.NewBlobClient(prefix+"/"+domain+"/_fence/floor.json").Delete(ctx, nil); err != nil {
				t.Fatal(err)
			}
		},
	})
	calls, unknown := rec.snapshot()
	checkCloudRoles(t, calls, unknown, policy.AzurePermissions, policy.AzureAdmin())
}
