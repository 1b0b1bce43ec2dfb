package azblobstore

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/transport"
)

// TestServerAnswers records what the blob service answers to each
// condition fence sends, on Put Blob and on Put Block List, straight
// through the SDK, and checks that the backend classifies each answer as
// the driver contract wants, whichever of Azure's documented answers or
// Azurite's the service gives (Azure answers If-Match on a missing blob
// with 404 BlobNotFound, Azurite with 412: its issue #2751).
func TestServerAnswers(t *testing.T) {
	b := newContainer(t, "", nil)
	ctx := t.Context()
	bb := b.client.NewBlockBlobClient("k")
	first, err := bb.Upload(ctx, streaming.NopCloser(strings.NewReader("v1")), nil)
	if err != nil {
		t.Fatal(err)
	}
	stale := azcore.ETag(`"0x8D000000000000"`)
	cond := func(ifMatch, ifNoneMatch *azcore.ETag) *blob.AccessConditions {
		return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: ifMatch, IfNoneMatch: ifNoneMatch}}
	}
	any := azcore.ETagAny
	id := base64.StdEncoding.EncodeToString([]byte("block-0001"))
	putBlob := func(name string, ac *blob.AccessConditions) error {
		_, err := b.client.NewBlockBlobClient(name).Upload(ctx, streaming.NopCloser(strings.NewReader("v2")), &blockblob.UploadOptions{AccessConditions: ac})
		return err
	}
	putBlockList := func(name string, ac *blob.AccessConditions) error {
		c := b.client.NewBlockBlobClient(name)
		if _, err := c.StageBlock(ctx, id, streaming.NopCloser(strings.NewReader("v2")), nil); err != nil {
			return err
		}
		_, err := c.CommitBlockList(ctx, []string{id}, &blockblob.CommitBlockListOptions{AccessConditions: ac})
		return err
	}
	for _, tc := range []struct {
		what string
		key  string
		ac   *blob.AccessConditions
		mode driver.PutMode
	}{
		{"If-None-Match: * on an existing blob", "k", cond(nil, &any), driver.Create{}},
		{"stale If-Match", "k", cond(&stale, nil), driver.Update{ETag: string(stale)}},
		{"If-Match on a missing blob", "missing", cond(first.ETag, nil), driver.Update{ETag: string(*first.ETag)}},
	} {
		for _, op := range []struct {
			name string
			put  func(string, *blob.AccessConditions) error
		}{{"Put Blob", putBlob}, {"Put Block List", putBlockList}} {
			err := op.put(tc.key, tc.ac)
			code, status := apiError(err)
			if err == nil {
				t.Errorf("%s, %s: accepted", op.name, tc.what)
				continue
			}
			t.Logf("%s, %s: %d %s", op.name, tc.what, status, code)
			if class := b.failPut(tc.key, err, tc.mode); !errors.Is(class, driver.ErrPreconditionFailed) {
				t.Errorf("%s, %s: %v; want ErrPreconditionFailed", op.name, tc.what, class)
			}
		}
	}
	if got := drivertest.ReadString(t, b, "k"); got != "v1" {
		t.Fatalf("k = %q after refused writes", got)
	}
	if _, err := b.Head(ctx, "missing"); !errors.Is(err, driver.ErrNotFound) {
		t.Fatalf("Head(missing) = %v; want ErrNotFound", err)
	}
}

// TestProbeNamesPutBlockList: the capability probe refuses a backend
// that honours the condition on Put Blob and drops it on Put Block List,
// and says so.
func TestProbeNamesPutBlockList(t *testing.T) {
	b := newContainer(t, "", nil)
	if err := driver.Probe(t.Context(), b); err != nil {
		t.Fatalf("Probe of the real backend: %v", err)
	}
	err := driver.Probe(t.Context(), drivertest.IgnoreConditionsOnComplete(b, b.threshold))
	if !errors.Is(err, driver.ErrUnsafeStore) || !strings.Contains(err.Error(), "Put Block List") {
		t.Fatalf("Probe of a backend ignoring the condition on Put Block List: %v; want ErrUnsafeStore naming Put Block List", err)
	}
}

// TestMissingContainer: a missing container is ErrNoBucket, not
// ErrNotFound (a missing blob), named.
func TestMissingContainer(t *testing.T) {
	s := testServer(t)
	b, err := New(s.client(t, "fence-azblob-no-such-container"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	const want = `container "fence-azblob-no-such-container" does not exist`
	_, err = b.Put(ctx, "k", strings.NewReader("x"), 1, driver.PutOptions{Mode: driver.Update{ETag: `"0x1"`}})
	if !errors.Is(err, driver.ErrNoBucket) || errors.Is(err, driver.ErrNotFound) || errors.Is(err, driver.ErrPreconditionFailed) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Put (Update) to a missing container: %v", err)
	}
	if _, _, err := b.Get(ctx, "k", driver.GetOptions{}); !errors.Is(err, driver.ErrNoBucket) || errors.Is(err, driver.ErrNotFound) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Get from a missing container: %v", err)
	}
	if err := b.List(ctx, "", func(driver.ObjectInfo) error { return nil }); !errors.Is(err, driver.ErrNoBucket) || errors.Is(err, driver.ErrNotFound) || !strings.Contains(err.Error(), want) {
		t.Fatalf("List of a missing container: %v", err)
	}
	if ok, err := b.ContainerExists(ctx); ok || err != nil {
		t.Fatalf("ContainerExists = %t, %v", ok, err)
	}
}

// TestEnsureContainer: creating is idempotent and concurrent-safe.
func TestEnsureContainer(t *testing.T) {
	s := testServer(t)
	name := containerName()
	c := s.client(t, name)
	b, err := New(c, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Delete(t.Context(), nil) })
	done := make(chan error, 3)
	for range 3 {
		go func() { done <- b.EnsureContainer(t.Context()) }()
	}
	for range 3 {
		if err := <-done; err != nil {
			t.Fatalf("EnsureContainer: %v", err)
		}
	}
	if ok, err := b.ContainerExists(t.Context()); !ok || err != nil {
		t.Fatalf("ContainerExists after EnsureContainer = %t, %v", ok, err)
	}
}

// TestWrongKey: a wrong shared key is ErrPermission, and the message
// says the credentials were refused.
func TestWrongKey(t *testing.T) {
	good := newContainer(t, "", nil)
	s := testServer(t)
	cred, err := container.NewSharedKeyCredential(s.account, base64.StdEncoding.EncodeToString([]byte("not the key")))
	if err != nil {
		t.Fatal(err)
	}
	c, err := container.NewClientWithSharedKeyCredential(s.endpoint+"/"+good.Container(), cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(c, "", nil)
	_, err = b.Put(t.Context(), "k", strings.NewReader("x"), 1, driver.PutOptions{Mode: driver.Create{}})
	if !errors.Is(err, driver.ErrPermission) || !strings.Contains(err.Error(), "refused the credentials") {
		t.Fatalf("Put with a wrong key: %v; want ErrPermission saying the credentials were refused", err)
	}
	if _, err := b.ContainerExists(t.Context()); !errors.Is(err, driver.ErrPermission) || !strings.Contains(err.Error(), "refused the credentials") {
		t.Fatalf("ContainerExists with a wrong key: %v", err)
	}
}

// TestUnreachable: an endpoint nothing listens on gives an error naming
// it, not a class the Store would act on.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + l.Addr().String() + "/devstoreaccount1"
	l.Close()
	t.Setenv(EnvConnectionString, "")
	t.Setenv(EnvAccount, "devstoreaccount1")
	t.Setenv(EnvKey, base64.StdEncoding.EncodeToString([]byte("key")))
	b, err := Open(t.Context(), "box", "", &Options{Endpoint: endpoint, Timeouts: transport.Timeouts{Connect: 200e6}})
	if err != nil {
		t.Fatal(err)
	}
	// No retries, so that the test does not wait out the SDK's backoff.
	b.client, _ = container.NewClientWithNoCredential(endpoint+"/box", &container.ClientOptions{ClientOptions: policy.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	_, err = b.Put(t.Context(), "k", strings.NewReader("x"), 1, driver.PutOptions{Mode: driver.Update{ETag: `"0x1"`}})
	if !errors.Is(err, driver.ErrUnreachable) || !strings.Contains(err.Error(), "cannot reach the store at "+endpoint) || errors.Is(err, driver.ErrPreconditionFailed) {
		t.Fatalf("Put to a closed port: %v", err)
	}
	if _, err := b.ContainerExists(t.Context()); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Fatalf("ContainerExists on a closed port: %v", err)
	}
}

// TestStoredNames: the prefix is a folder, keys come back without it,
// and metadata names are stored as C# identifiers.
func TestStoredNames(t *testing.T) {
	b := newContainer(t, "/tenant/x/", nil)
	ctx := t.Context()
	if _, err := b.Put(ctx, "k", strings.NewReader("v"), 1, driver.PutOptions{Mode: driver.Create{}, Metadata: map[string]string{"fence-seq": "7"}}); err != nil {
		t.Fatal(err)
	}
	props, err := b.client.NewBlobClient("tenant/x/k").GetProperties(ctx, nil)
	if err != nil {
		t.Fatalf("blob not at tenant/x/k: %v", err)
	}
	var names []string
	for k := range props.Metadata {
		names = append(names, strings.ToLower(k))
	}
	if len(names) != 1 || names[0] != "fence_seq" {
		t.Fatalf("stored metadata names %q; want [fence_seq]", names)
	}
	var keys []string
	if err := b.List(ctx, "", func(o driver.ObjectInfo) error { keys = append(keys, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != "k" {
		t.Fatalf("List = %q, want [k]", keys)
	}
}

// TestOpenFromEnvironment: Open takes the account and key, or a
// connection string, from the environment.
func TestOpenFromEnvironment(t *testing.T) {
	s := testServer(t)
	seed := newContainer(t, "", nil)
	check := func(b *Backend) {
		t.Helper()
		if _, err := b.Put(t.Context(), "env", bytes.NewReader([]byte("x")), 1, driver.PutOptions{}); err != nil {
			t.Fatalf("Put: %v", err)
		}
		rc, _, err := b.Get(t.Context(), "env", driver.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, rc)
		rc.Close()
	}
	t.Setenv(EnvConnectionString, "")
	t.Setenv(EnvAccount, s.account)
	t.Setenv(EnvKey, s.key)
	b, err := Open(t.Context(), seed.Container(), "", &Options{Endpoint: s.endpoint})
	if err != nil {
		t.Fatal(err)
	}
	check(b)
	t.Setenv(EnvAccount, "")
	t.Setenv(EnvKey, "")
	t.Setenv(EnvConnectionString, "DefaultEndpointsProtocol=http;AccountName="+s.account+";AccountKey="+s.key+";BlobEndpoint="+s.endpoint+";")
	b, err = Open(t.Context(), seed.Container(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	check(b)
	if b.Location() != "azblob://"+seed.Container()+"@"+s.endpoint {
		t.Fatalf("Location = %q", b.Location())
	}
}

// TestListPages: a listing that spans several pages reports every blob
// once, in lexical order.
func TestListPages(t *testing.T) {
	b := newContainer(t, "p", nil)
	b.pageSize = 2
	want := []string{"a", "a/b", "b", "b0", "c-d", "c/d", "z"}
	for _, k := range []string{"z", "c/d", "b0", "a/b", "c-d", "a", "b"} {
		if _, err := b.Put(t.Context(), k, strings.NewReader(k), int64(len(k)), driver.PutOptions{Mode: driver.Create{}}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := b.List(t.Context(), "", func(o driver.ObjectInfo) error { got = append(got, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("List in pages of 2 = %q, want %q", got, want)
	}
}
