package faults

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"testing"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/azblobstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/gcsstore"
	"github.com/fencedstore/fence/objstore/s3store"
	"github.com/fencedstore/fence/transport"
)

// storeKind is where a run keeps its data: the suite's own MinIO (the
// default), or the emulator of another cloud's object store that
// deploy/local/servers.sh runs, reached through fence's backend for that
// cloud: fake-gcs-server (gs://, objstore/gcsstore) or Azurite
// (azblob://, objstore/azblobstore). The suite neither starts nor kills
// the emulators, so kinds that restart or partition the store's server,
// or rewrite S3 replies, run on MinIO only.
type storeKind string

const (
	storeMinIO storeKind = ""
	storeGCS   storeKind = "gcs"
	storeAzure storeKind = "azure"
)

func (s storeKind) String() string {
	switch s {
	case storeGCS:
		return "fake-gcs-server"
	case storeAzure:
		return "Azurite"
	}
	return "MinIO"
}

// azureServer is Azurite's blob service and the shared key the suite
// uses.
type azureServer struct{ endpoint, account, key string }

// needStore skips t when its kind's emulator is not configured.
func needStore(t *testing.T, env environment, s storeKind) {
	t.Helper()
	switch {
	case s == storeGCS && env.gcs == "":
		t.Skipf("faults: this kind runs against fake-gcs-server: set %s to its base URL (bash deploy/local/test.sh sets it)", envGCS)
	case s == storeAzure && env.azure.endpoint == "":
		t.Skipf("faults: this kind runs against Azurite: set %s, %s and %s (bash deploy/local/test.sh sets them)", envAzure, envAzureAccount, envAzureKey)
	}
}

// directRoute is the proxy route of the suite's own reads and writes to
// Azurite: without faults, but recorded like every other route (see
// record_emul_test.go).
const directRoute = "store-direct"

// upstream returns host:port of the run's store.
func (r *run) upstream() string {
	switch r.p.store {
	case storeGCS:
		return hostOf(r.s.env.gcs)
	case storeAzure:
		return hostOf(r.s.env.azure.endpoint)
	}
	return r.s.minio.addr()
}

func hostOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	return u.Host
}

// endpointAt returns the store's endpoint as reached at addr (host:port):
// Azure's carries the account as its path.
func (r *run) endpointAt(addr string) string {
	if r.p.store == storeAzure {
		if u, err := url.Parse(r.s.env.azure.endpoint); err == nil {
			return "http://" + addr + u.Path
		}
	}
	return "http://" + addr
}

// backend returns the backend a process opens the store with: s3kind
// (spec.BackendS3 or spec.BackendMinio) on MinIO, else the emulator's.
func (r *run) backend(s3kind string) string {
	switch r.p.store {
	case storeGCS:
		return spec.BackendGCS
	case storeAzure:
		return spec.BackendAzure
	}
	return s3kind
}

// childEnv is what the run's processes need in their environment: on
// Azurite, the shared key azblobstore.Open takes from it.
func (r *run) childEnv() []string {
	if r.p.store != storeAzure {
		return nil
	}
	return []string{
		azblobstore.EnvConnectionString + "=",
		azblobstore.EnvAccount + "=" + r.s.env.azure.account,
		azblobstore.EnvKey + "=" + r.s.env.azure.key,
	}
}

// wirePath is the proxy's wire record of a run on Azurite.
func (r *run) wirePath() string { return filepath.Join(r.dir, "wire.jsonl") }

// provisionStore creates the run's bucket: on MinIO and fake-gcs-server
// with versioning on, so that the store keeps every manifest write; on
// Azurite a container (the proxy's wire record stands in for versions).
func (r *run) provisionStore(ctx context.Context) {
	t := r.t
	switch r.p.store {
	case storeGCS:
		bk := r.s.gcsClient(t).Bucket(r.bucket)
		if err := bk.Create(ctx, "fence", &storage.BucketAttrs{VersioningEnabled: true}); err != nil {
			t.Fatalf("create bucket %s on fake-gcs-server: %v", r.bucket, err)
		}
		a, err := bk.Attrs(ctx)
		if err != nil {
			t.Fatalf("read bucket %s on fake-gcs-server: %v", r.bucket, err)
		}
		if !a.VersioningEnabled {
			t.Fatalf("fake-gcs-server created bucket %s without versioning, which the store's record needs", r.bucket)
		}
	case storeAzure:
		if _, err := r.azureContainer(r.s.env.azure.endpoint).Create(ctx, nil); err != nil {
			t.Fatalf("create container %s on Azurite: %v", r.bucket, err)
		}
	default:
		b := aws.String(r.bucket)
		if _, err := r.s.s3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: b}); err != nil {
			t.Fatalf("create bucket %s: %v", r.bucket, err)
		}
		if _, err := r.s.s3.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b, VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
			t.Fatalf("enable versioning on %s: %v", r.bucket, err)
		}
	}
}

// azureContainer returns a client of the run's container at endpoint
// (Azurite's, or a proxy route's), with the shared key.
func (r *run) azureContainer(endpoint string) *container.Client {
	cred, err := container.NewSharedKeyCredential(r.s.env.azure.account, r.s.env.azure.key)
	if err != nil {
		r.t.Fatalf("Azurite's shared key (%s): %v", envAzureKey, err)
	}
	opts := &container.ClientOptions{ClientOptions: policy.ClientOptions{Transport: transport.Timeouts{}.Client()}}
	c, err := container.NewClientWithSharedKeyCredential(endpoint+"/"+r.bucket, cred, opts)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// openStore opens the suite's own backend of the run's store: MinIO and
// fake-gcs-server directly, Azurite through the proxy's direct route, so
// that its writes are in the wire record.
func (r *run) openStore() driver.Backend {
	switch r.p.store {
	case storeGCS:
		b, err := gcsstore.New(r.s.gcsClient(r.t), r.bucket, "", r.s.env.gcs, nil)
		if err != nil {
			r.t.Fatal(err)
		}
		return b
	case storeAzure:
		b, err := azblobstore.New(r.azureContainer(r.endpointAt(r.proxy.addr(directRoute))), "", nil)
		if err != nil {
			r.t.Fatal(err)
		}
		return b
	}
	b, err := s3store.Open(context.Background(), r.bucket, "", &s3store.Options{Endpoint: r.s.minio.url(), Region: "us-east-1", PathStyle: true})
	if err != nil {
		r.t.Fatal(err)
	}
	return b
}

// readRecord reads domain's record from the run's store (see
// readS3Record and record_emul_test.go).
func (r *run) readRecord(ctx context.Context, domain string) (*domainRecord, error) {
	switch r.p.store {
	case storeGCS:
		return readGCSRecord(ctx, r.s.gcsClient(r.t).Bucket(r.bucket), domain)
	case storeAzure:
		lines, err := loadWire(r.wirePath())
		if err != nil {
			return nil, err
		}
		u, err := url.Parse(r.s.env.azure.endpoint)
		if err != nil {
			return nil, err
		}
		d, err := wireRecordOf(lines, u.Path+"/"+r.bucket+"/", domain)
		if err != nil {
			return nil, err
		}
		return d, r.checkWireEnd(ctx, d)
	}
	return readS3Record(ctx, r.s.s3, r.bucket, domain)
}

// checkWireEnd checks that the wire record of d's domain ends where the
// store does: its last manifest write carries the manifest's ETag now
// (or there is neither). A write that reached Azurite without the proxy
// would show here.
func (r *run) checkWireEnd(ctx context.Context, d *domainRecord) error {
	info, err := r.directBackend().Head(ctx, format.ManifestKey(d.domain))
	switch {
	case errors.Is(err, driver.ErrNotFound) && len(d.writes) == 0:
		return nil
	case errors.Is(err, driver.ErrNotFound):
		return fmt.Errorf("the wire record of %s has %d manifest writes, but the store has no manifest", d.domain, len(d.writes))
	case err != nil:
		return fmt.Errorf("read the manifest of %s: %w", d.domain, err)
	case len(d.writes) == 0:
		return fmt.Errorf("the store has a manifest of %s (ETag %s) that the wire record never saw written", d.domain, info.ETag)
	}
	if last := d.writes[len(d.writes)-1].versionID; !sameETag(last, info.ETag) {
		return fmt.Errorf("the wire record of %s does not end where the store does: its last manifest write has ETag %s, the manifest has %s", d.domain, last, info.ETag)
	}
	return nil
}

// gcsClient returns the suite's client of fake-gcs-server, opened once.
func (s *suite) gcsClient(t *testing.T) *storage.Client {
	s.gcsOnce.Do(func() {
		b, err := gcsstore.Open(context.Background(), "unused", "", &gcsstore.Options{Endpoint: s.env.gcs})
		if err != nil {
			s.gcsErr = err
			return
		}
		s.gcs = b.Client()
	})
	if s.gcsErr != nil {
		t.Fatalf("open fake-gcs-server at %s: %v", s.env.gcs, s.gcsErr)
	}
	return s.gcs
}
