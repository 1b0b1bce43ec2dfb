package main

import (
	"os"
	"testing"
)

// gcsEndpointEnv holds the endpoint of the fake-gcs-server that
// deploy/local/servers.sh starts.
const gcsEndpointEnv = "FENCE_TEST_GCS_ENDPOINT"

// cloudSequence with --store gs://...?endpoint=... (gcsstore on
// fake-gcs-server).
func TestServersGCS(t *testing.T) {
	ep := os.Getenv(gcsEndpointEnv)
	if ep == "" {
		t.Skipf("fence CLI against fake-gcs-server: %s not set; bash deploy/local/test.sh starts it and sets it", gcsEndpointEnv)
	}
	bucket := unique("fence-cli-gcs-")
	cloudSequence(t, "gs://"+bucket+"/tenant?endpoint="+ep, "bucket", bucket)
}
