package config

import (
	"os"
	"strings"
	"testing"
)

// A wrong secret key, against MinIO and through both SDKs: the check that
// fails says which settings to check, instead of the store's bare
// "signature does not match".
func TestDoctorWrongSecretServers(t *testing.T) {
	ep := os.Getenv(minioEndpointEnv)
	if ep == "" {
		t.Skipf("%s is not set; bash deploy/local/test.sh starts MinIO and sets it", minioEndpointEnv)
	}
	if os.Getenv("AWS_REGION") == "" {
		t.Setenv("AWS_REGION", "us-east-1")
	}
	bucket := testBucket(t, ep)
	t.Setenv("AWS_SECRET_ACCESS_KEY", os.Getenv("AWS_SECRET_ACCESS_KEY")+"-wrong")
	for _, url := range []string{
		"s3://" + bucket + "?endpoint=" + ep + "&path_style=true",
		"minio://" + bucket + "?endpoint=" + ep,
	} {
		checks, err := Doctor(t.Context(), url, "", &DoctorOptions{Domain: "doctor/wrong-secret", Timeout: 10e9})
		if err != nil {
			t.Fatal(err)
		}
		var failed *Check
		for i := range checks {
			if checks[i].Status == StatusFail {
				failed = &checks[i]
				break
			}
		}
		if failed == nil || !strings.Contains(failed.Detail, "AWS_SECRET_ACCESS_KEY") || !strings.Contains(failed.Detail, "AWS_PROFILE") {
			t.Fatalf("%s: checks %+v; want a failed check naming the key pair and the profile", url, checks)
		}
		t.Logf("%s: %s: %s", url, failed.Name, failed.Detail)
	}
}
