package clients

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/internal/azuretest"
	_ "github.com/fencedstore/fence/objstore/azblobstore" // opens azblob:// URLs
	"github.com/fencedstore/fence/objstore/driver"
	_ "github.com/fencedstore/fence/objstore/gcsstore" // opens gs:// URLs
)

// cloudClients are the clients the gateway runs over the emulators of
// Google Cloud Storage and Azure Blob Storage: one no one here wrote (the
// aws cli) and the Go SDK. The gateway's S3 side is the same on every
// store; what differs is how the store takes an upload in parts (a GCS
// bucket has none: each part is an object of its own until Complete), so
// two clients show it and the other five would add minutes.
var cloudClients = []string{"awscli", "aws-sdk-go-v2"}

// TestGatewayGCS runs the aws cli and aws-sdk-go-v2 through `fence exec
// --s3` on a gs:// store on fake-gcs-server, over plain HTTP.
func TestGatewayGCS(t *testing.T) {
	ep := os.Getenv("FENCE_TEST_GCS_ENDPOINT")
	if ep == "" {
		t.Skip("FENCE_TEST_GCS_ENDPOINT is not set: bash deploy/local/test.sh starts fake-gcs-server and sets it")
	}
	runClients(t, &gatewayTarget{fence: buildFence(t), store: func(t *testing.T) (string, string) {
		bucket := scratchBucket("fence-gw-")
		return initStore(t, "gs://"+bucket+"?endpoint="+ep), bucket
	}}, cloudClients...)
}

// TestGatewayAzure runs the aws cli and aws-sdk-go-v2 through `fence
// exec --s3` on an azblob:// store on Azurite, over plain HTTP; the
// gateway answers for the container's name as the bucket.
func TestGatewayAzure(t *testing.T) {
	ep := azuretest.Use(t, "the gateway's clients")
	runClients(t, &gatewayTarget{fence: buildFence(t), store: func(t *testing.T) (string, string) {
		container := scratchBucket("fence-gw-")
		return initStore(t, "azblob://"+container+"?endpoint="+ep), container
	}}, cloudClients...)
}

// scratchBucket returns a fresh bucket or container name.
func scratchBucket(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// initStore creates url's bucket or container with `fence init`, and
// deletes every object in it when t ends (the emulators keep the empty
// bucket until they stop).
func initStore(t *testing.T, url string) string {
	t.Helper()
	if out, err := exec.Command(buildFence(t), "--store", url, "init").CombinedOutput(); err != nil {
		t.Fatalf("fence init %s: %v\n%s", url, err, out)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		b, err := config.OpenBackend(ctx, url)
		if err != nil {
			t.Logf("emptying %s: %v", url, err)
			return
		}
		defer b.Close()
		var keys []string
		_ = b.List(ctx, "", func(o driver.ObjectInfo) error { keys = append(keys, o.Key); return nil })
		for _, k := range keys {
			_ = b.Delete(ctx, k)
		}
	})
	return url
}
