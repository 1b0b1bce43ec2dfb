package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"

	"github.com/fencedstore/fence/internal/azuretest"
	"github.com/fencedstore/fence/objstore/azblobstore"
	"github.com/fencedstore/fence/objstore/gcsstore"
)

// Environment the emulator tests read; deploy/local/servers.sh sets them.
const (
	gcsEndpointEnv = "FENCE_TEST_GCS_ENDPOINT"
)

func scratchName(prefix string) string {
	var rnd [6]byte
	rand.Read(rnd[:])
	return prefix + hex.EncodeToString(rnd[:])
}

// gcsBackend opens a backend on a fresh bucket of fake-gcs-server under
// prefix, or skips t. The bucket must be empty when t ends; it is then
// deleted.
func gcsBackend(t *testing.T, prefix string) *gcsstore.Backend {
	t.Helper()
	ep := os.Getenv(gcsEndpointEnv)
	if ep == "" {
		t.Skipf("bench: %s is not set; set it to a fake-gcs-server endpoint such as http://127.0.0.1:4443 (deploy/local/test.sh does) to run against it", gcsEndpointEnv)
	}
	b, err := gcsstore.Open(t.Context(), scratchName("fence-bench-"), prefix, &gcsstore.Options{Endpoint: ep})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.EnsureBucket(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.WithoutCancel(t.Context())
		bk := b.Client().Bucket(b.Bucket())
		for _, k := range gcsKeys(t, b) {
			t.Errorf("left in bucket %s: %s", b.Bucket(), k)
			_ = bk.Object(k).Delete(ctx)
		}
		if err := bk.Delete(ctx); err != nil {
			t.Errorf("delete bucket %s: %v", b.Bucket(), err)
		}
		b.Close()
	})
	return b
}

// gcsKeys lists every object of b's bucket.
func gcsKeys(t *testing.T, b *gcsstore.Backend) []string {
	t.Helper()
	var keys []string
	it := b.Client().Bucket(b.Bucket()).Objects(context.WithoutCancel(t.Context()), nil)
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return keys
		}
		if err != nil {
			t.Fatalf("list bucket %s: %v", b.Bucket(), err)
		}
		keys = append(keys, a.Name)
	}
}

// azblobBackend opens a backend on a fresh container of Azurite under
// prefix, as the CLI does (azblobstore.Open, the shared key in
// AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, which the memory case's
// child processes inherit), or skips t. The container must be empty when
// t ends; it is then deleted.
func azblobBackend(t *testing.T, prefix string) *azblobstore.Backend {
	t.Helper()
	ep := azuretest.Use(t, "bench")
	b, err := azblobstore.Open(t.Context(), scratchName("fence-bench-"), prefix, &azblobstore.Options{Endpoint: ep})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.EnsureContainer(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, k := range azblobKeys(t, b) {
			t.Errorf("left in container %s: %s", b.Container(), k)
		}
		if _, err := b.Client().Delete(context.WithoutCancel(t.Context()), nil); err != nil {
			t.Errorf("delete container %s: %v", b.Container(), err)
		}
	})
	return b
}

// azblobKeys lists every blob of b's container.
func azblobKeys(t *testing.T, b *azblobstore.Backend) []string {
	t.Helper()
	var keys []string
	p := b.Client().NewListBlobsFlatPager(nil)
	for p.More() {
		page, err := p.NextPage(context.WithoutCancel(t.Context()))
		if err != nil {
			t.Fatalf("list container %s: %v", b.Container(), err)
		}
		for _, o := range page.Segment.BlobItems {
			keys = append(keys, *o.Name)
		}
	}
	return keys
}

// TestRunAgainstGCS runs every case with tiny sizes through gcsstore on
// fake-gcs-server, with bucket leases in the same bucket, against plain
// calls through the backend's own *storage.Client. The bucket must be
// empty afterwards.
func TestRunAgainstGCS(t *testing.T) {
	b := gcsBackend(t, "via-gcs")
	cfg := tiny(b)
	cfg.CLI, cfg.StoreURL, cfg.ProcessIterations = fenceCLI(t), "gs://"+b.Bucket()+"/via-gcs?endpoint="+os.Getenv(gcsEndpointEnv), 2
	rep, err := Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, rep.Table())
	}
	checkReport(t, rep, true, true)
	if !strings.Contains(rep.Plain, "*storage.Client") || !strings.Contains(rep.Plain, "on the backend's own") {
		t.Errorf("plain baseline %q is not the backend's *storage.Client", rep.Plain)
	}
	if !strings.HasPrefix(rep.Coordinator, "bucket leases in gs://"+b.Bucket()) {
		t.Errorf("coordinator %q, want bucket leases in the bucket", rep.Coordinator)
	}
	checkBaselines(t, rep, "GCS upload", "GCS read", "ifGenerationMatch")
	if keys := gcsKeys(t, b); len(keys) != 0 {
		t.Errorf("cleanup left %d objects, for example %q", len(keys), keys[0])
	}
	t.Log("\n" + rep.Table())
}

// TestRunAgainstAzurite is TestRunAgainstGCS through azblobstore on
// Azurite, against plain calls through the backend's own
// *container.Client.
func TestRunAgainstAzurite(t *testing.T) {
	b := azblobBackend(t, "via-azblob")
	cfg := tiny(b)
	cfg.CLI, cfg.StoreURL, cfg.ProcessIterations = fenceCLI(t), "azblob://"+b.Container()+"/via-azblob?endpoint="+os.Getenv(azuretest.EndpointEnv), 2
	rep, err := Run(t.Context(), cfg, io.Discard)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, rep.Table())
	}
	checkReport(t, rep, true, true)
	if !strings.Contains(rep.Plain, "*container.Client") || !strings.Contains(rep.Plain, "on the backend's own") {
		t.Errorf("plain baseline %q is not the backend's *container.Client", rep.Plain)
	}
	if !strings.HasPrefix(rep.Coordinator, "bucket leases in azblob://"+b.Container()) {
		t.Errorf("coordinator %q, want bucket leases in the container", rep.Coordinator)
	}
	checkBaselines(t, rep, "Put Blob", "Get Blob", "If-Match")
	if keys := azblobKeys(t, b); len(keys) != 0 {
		t.Errorf("cleanup left %d blobs, for example %q", len(keys), keys[0])
	}
	t.Log("\n" + rep.Table())
}

// checkBaselines checks that the rows name the calls they were compared
// with: put, get, and the condition of the lease rows' conditional put.
func checkBaselines(t *testing.T, rep Report, put, get, cond string) {
	t.Helper()
	for _, row := range rep.Rows {
		var want string
		switch {
		case strings.HasPrefix(row.ID, "put/"), strings.HasPrefix(row.ID, "commit/"), strings.HasPrefix(row.ID, "domains/"), row.ID == "livekeys/2":
			want = put
		case strings.HasPrefix(row.ID, "get/"):
			want = get
		case strings.HasPrefix(row.ID, "lease/"), strings.HasPrefix(row.ID, "job/"):
			want = put + " (" + cond
		case strings.HasPrefix(row.ID, "process/"):
			want = put
		default:
			continue
		}
		if !strings.Contains(row.Baseline, want) {
			t.Errorf("%s: baseline %q does not name %q", row.ID, row.Baseline, want)
		}
	}
}

// checkPlainConditions checks that p's conditional put is one: a create
// over an existing object and a replace with a stale ETag both fail with
// the store's refusal (isRefusal), and leave the object as it was.
func checkPlainConditions(t *testing.T, p plain, isRefusal func(error) bool) {
	t.Helper()
	ctx := t.Context()
	key := scratchName("cond-")
	first, err := p.putIfMatch(ctx, key, []byte("one"), "")
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := p.putIfMatch(ctx, key, []byte("two"), ""); !isRefusal(err) {
		t.Fatalf("create over an existing object = %v; want the store's refusal", err)
	}
	second, err := p.putIfMatch(ctx, key, []byte("three"), first)
	if err != nil {
		t.Fatalf("replace with the current ETag: %v", err)
	}
	if second == first {
		t.Fatalf("the replace returned the old ETag %q", first)
	}
	if _, err := p.putIfMatch(ctx, key, []byte("four!"), first); !isRefusal(err) {
		t.Fatalf("replace with a stale ETag = %v; want the store's refusal", err)
	}
	if n, err := p.get(ctx, key); err != nil || n != int64(len("three")) {
		t.Fatalf("get after the refused writes = %d bytes, %v; want the 5 bytes of the last accepted write", n, err)
	}
	if err := p.put(ctx, key, []byte("unconditional")); err != nil {
		t.Fatalf("unconditional put: %v", err)
	}
}

// TestPlainConditionsGCS: the GCS baseline's conditional put is refused
// (412) by fake-gcs-server when its generation condition does not hold,
// so the lease case compares fence with a real conditional write.
func TestPlainConditionsGCS(t *testing.T) {
	b := gcsBackend(t, "plain")
	t.Cleanup(func() { deleteAll(context.WithoutCancel(t.Context()), b, "") })
	p := plainFor(b)
	if _, ok := p.(*gcsPlain); !ok {
		t.Fatalf("plainFor(*gcsstore.Backend) = %T", p)
	}
	checkPlainConditions(t, p, func(err error) bool {
		var ge *googleapi.Error
		return errors.As(err, &ge) && ge.Code == http.StatusPreconditionFailed
	})
}

// TestPlainConditionsAzurite is TestPlainConditionsGCS on Azurite: a
// create over an existing blob answers 409 BlobAlreadyExists, a stale
// If-Match 412 ConditionNotMet.
func TestPlainConditionsAzurite(t *testing.T) {
	b := azblobBackend(t, "plain")
	t.Cleanup(func() { deleteAll(context.WithoutCancel(t.Context()), b, "") })
	p := plainFor(b)
	if _, ok := p.(*azblobPlain); !ok {
		t.Fatalf("plainFor(*azblobstore.Backend) = %T", p)
	}
	checkPlainConditions(t, p, func(err error) bool {
		return bloberror.HasCode(err, bloberror.BlobAlreadyExists, bloberror.ConditionNotMet)
	})
}
