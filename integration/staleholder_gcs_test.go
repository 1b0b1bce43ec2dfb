package integration

import (
	"context"
	"os"
	"testing"

	"github.com/fencedstore/fence/objstore/gcsstore"
)

// gcsEndpointEnv holds the endpoint of the fake-gcs-server that
// deploy/local/servers.sh starts.
const gcsEndpointEnv = "FENCE_TEST_GCS_ENDPOINT"

// TestStaleHolderAcrossProcessesGCS is TestStaleHolderAcrossProcesses on
// gs:// (gcsstore against fake-gcs-server) with bucket leases: holder A
// is stopped with SIGSTOP between its lease check and its write, B takes
// over, and A's write is fenced naming both tokens.
func TestStaleHolderAcrossProcessesGCS(t *testing.T) {
	ep := os.Getenv(gcsEndpointEnv)
	if ep == "" {
		t.Skipf("needs fake-gcs-server: set %s (bash deploy/local/test.sh starts it and sets it)", gcsEndpointEnv)
	}
	s := setup{
		Backend: "gs", Coord: "bucket", GCS: ep,
		Bucket: uniqueName("stale"), Domain: "reports/monthly", TTLMilli: 1500,
	}
	provision(t, s)
	runStaleHolder(t, s)
}

// provisionGCS creates s's bucket on fake-gcs-server; the server's data
// is in memory and goes with it.
func provisionGCS(t *testing.T, s setup) {
	t.Helper()
	b, err := gcsstore.Open(context.Background(), s.Bucket, "", &gcsstore.Options{Endpoint: s.GCS})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.EnsureBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
}
