package clients

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/objstore"
	_ "github.com/fencedstore/fence/objstore/miniostore" // opens minio:// URLs
)

// gatewayTarget is fence's own S3 gateway: each client's scenario runs as
// the CMD of `fence exec DOMAIN --s3` on a store, and what it stored is
// read back through fence (the published values of the domain, which are
// the job's output only once exec has committed it).
type gatewayTarget struct {
	fence string // the fence binary
	tls   bool
	// store returns a fresh store URL for one run, and the bucket the
	// gateway answers for on it.
	store func(t *testing.T) (url, bucket string)
}

var (
	fenceOnce sync.Once
	fenceBin  string
	fenceErr  error
)

// buildFence builds cmd/fence once per test binary.
func buildFence(t *testing.T) string {
	t.Helper()
	fenceOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fence-clients-")
		if err != nil {
			fenceErr = err
			return
		}
		fenceBin = filepath.Join(dir, "fence")
		out, err := exec.Command("go", "build", "-o", fenceBin, "github.com/fencedstore/fence/cmd/fence").CombinedOutput()
		if err != nil {
			fenceErr = fmt.Errorf("go build cmd/fence: %v\n%s", err, out)
		}
	})
	if fenceErr != nil {
		t.Fatal(fenceErr)
	}
	return fenceBin
}

func (g *gatewayTarget) open(t *testing.T, client string) run {
	t.Helper()
	url, bucket := g.store(t)
	ctx := context.Background()
	b, err := config.OpenBackend(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	domain := "gw/" + client
	return &gatewayRun{g: g, url: url, bucket: bucket, domain: domain, store: objstore.New(b, nil)}
}

type gatewayRun struct {
	g           *gatewayTarget
	url, bucket string
	domain      string
	store       *objstore.Store
}

func (r *gatewayRun) prefix() string { return r.domain + "/" }

// command runs `fence exec DOMAIN --s3 -- argv`: exec sets the contract,
// over this process's environment (whose AWS credentials are the
// store's, for fence itself).
func (r *gatewayRun) command(ctx context.Context, argv []string, extra []string) *exec.Cmd {
	args := []string{"--store", r.url, "exec", r.domain, "--s3", "--s3-bucket", r.bucket}
	if r.g.tls {
		args = append(args, "--s3-tls")
	}
	cmd := exec.CommandContext(ctx, r.g.fence, append(append(args, "--"), argv...)...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FENCE_STORE=") && !strings.HasPrefix(kv, "FENCE_COORD=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, extra...)
	return cmd
}

func (r *gatewayRun) read(ctx context.Context, key string) ([]byte, error) {
	k, ok := strings.CutPrefix(key, r.prefix())
	if !ok {
		return nil, fmt.Errorf("%s is outside domain %s: %w", key, r.domain, errNotFound)
	}
	data, _, err := r.store.ReadAll(ctx, r.domain, k)
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, fmt.Errorf("%s: %w", key, errNotFound)
	}
	return data, err
}

func (r *gatewayRun) keys(ctx context.Context) ([]string, error) {
	vs, err := r.store.List(ctx, r.domain, nil)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(vs))
	for i, v := range vs {
		keys[i] = r.prefix() + v.Key
	}
	return keys, nil
}

// TestGatewayFile runs every client through `fence exec --s3` on a local
// directory store, over plain HTTP.
func TestGatewayFile(t *testing.T) {
	runClients(t, &gatewayTarget{fence: buildFence(t), store: func(t *testing.T) (string, string) {
		return "file://" + t.TempDir(), "fence"
	}})
}

// TestGatewayMinIO runs every client through `fence exec --s3 --s3-tls`
// on MinIO, over HTTPS: the SDKs then send aws-chunked bodies with
// checksum trailers, which the gateway must decode to the clients' bytes.
func TestGatewayMinIO(t *testing.T) {
	m := newMinioTarget(t)
	g := &gatewayTarget{fence: buildFence(t), tls: true, store: func(t *testing.T) (string, string) {
		var b [4]byte
		_, _ = rand.Read(b[:])
		bucket := "fence-gw-" + hex.EncodeToString(b[:])
		url := "minio://" + bucket + "?endpoint=" + m.endpoint
		if out, err := exec.Command(buildFence(t), "--store", url, "init").CombinedOutput(); err != nil {
			t.Fatalf("fence init %s: %v\n%s", url, err, out)
		}
		t.Cleanup(func() { m.removeBucket(t, bucket) })
		return url, bucket
	}}
	runClients(t, g)
}
