package config

import (
	"crypto/rand"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/fencedstore/fence/policy"
)

// gcsEndpointEnv holds the endpoint of the fake-gcs-server that
// deploy/local/servers.sh starts.
const gcsEndpointEnv = "FENCE_TEST_GCS_ENDPOINT"

func TestParseGS(t *testing.T) {
	const ep = "http://127.0.0.1:4443"
	for _, tt := range []struct {
		raw     string
		want    Location
		wantErr string
	}{
		{raw: "gs://bucket", want: Location{Scheme: "gs", Bucket: "bucket"}},
		{raw: "gs://my_bucket.1/a/b/", want: Location{Scheme: "gs", Bucket: "my_bucket.1", Prefix: "a/b"}},
		{raw: "gs://bucket/p?endpoint=" + ep, want: Location{Scheme: "gs", Bucket: "bucket", Prefix: "p", Endpoint: ep}},
		{raw: "gs://", wantErr: "a GCS bucket name is"},
		{raw: "gs://Bucket", wantErr: "a GCS bucket name is"},
		{raw: "gs://goog-bucket", wantErr: `not starting with "goog"`},
		{raw: "gs://bucket/../x", wantErr: "'..' segments"},
		{raw: "gs://bucket?region=us", wantErr: `query parameter "region" is not one of gs:// URLs, which take endpoint`},
		{raw: "gs://bucket?project=p", wantErr: `unknown query parameter "project"; gs:// URLs take endpoint`},
		{raw: "gs://bucket?endpoint=" + ep + "&endpoint=" + ep, wantErr: "given twice"},
		{raw: "gs://bucket?endpoint=ftp://h", wantErr: "the scheme must be http or https"},
		{raw: "gs://bucket?credentials=s3cr3t", wantErr: "looks like a credential"},
		{raw: "gs://u:s3cr3t@bucket", wantErr: "credentials in URLs are not accepted: fence takes Google Cloud credentials only from Application Default Credentials"},
		{raw: "gs://bucket?token=s3cr3t", wantErr: `"token" looks like a credential; fence takes Google Cloud credentials`},
		{raw: "gs://bucket?endpoint=http://u:s3cr3t@h:1", wantErr: "credentials in URLs are not accepted"},
		{raw: "gs://host:4443/bucket", wantErr: "the server goes in the endpoint parameter"},
	} {
		loc, err := ParseURL(tt.raw)
		if tt.wantErr != "" {
			if !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("ParseURL(%q) = %v; want ErrBadURL with %q", tt.raw, err, tt.wantErr)
			}
			continue
		}
		if err != nil || loc != tt.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", tt.raw, loc, err, tt.want)
			continue
		}
		if again, err := ParseURL(loc.String()); err != nil || again != loc {
			t.Errorf("%q does not round-trip: %q gives %+v, %v", tt.raw, loc.String(), again, err)
		}
	}
	if !strings.Contains(SupportedStores(), "gs://BUCKET") {
		t.Errorf("SupportedStores() = %q", SupportedStores())
	}
}

// gcsEndpoint returns the emulator's endpoint, or skips t.
func gcsEndpoint(t *testing.T) string {
	t.Helper()
	ep := os.Getenv(gcsEndpointEnv)
	if ep == "" {
		t.Skipf("%s is not set; set it to the endpoint of a fake-gcs-server (bash deploy/local/test.sh starts one)", gcsEndpointEnv)
	}
	return ep
}

// TestInitDoctorGS: fence init creates a gs:// bucket (once), and doctor
// finds it missing before and every check ok after.
func TestInitDoctorGS(t *testing.T) {
	ep := gcsEndpoint(t)
	bucket := "fence-config-" + strings.ToLower(rand.Text()[:12])
	url := "gs://" + bucket + "/tenant?endpoint=" + ep
	checks, err := Doctor(t.Context(), url, "", &DoctorOptions{Domain: "doctor/gs"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(statuses(checks), "\n"); !strings.HasPrefix(got, "store reachable=ok\nbucket exists=fail\n") {
		t.Fatalf("doctor before init:\n%s\n%+v", got, checks)
	}
	for i, created := range []bool{true, false} {
		done, err := Init(t.Context(), url, "")
		if err != nil {
			t.Fatalf("Init #%d: %v", i+1, err)
		}
		want := Resource{Kind: "bucket", Name: bucket, Location: "gs://" + bucket + "@" + ep, Created: created}
		if len(done) != 1 || done[0] != want {
			t.Fatalf("Init #%d = %+v; want %+v", i+1, done, want)
		}
	}
	checks, err = Doctor(t.Context(), url, url, &DoctorOptions{Domain: "doctor/gs"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if c.Status != StatusOK {
			t.Fatalf("doctor after init:\n%s\n%+v", strings.Join(statuses(checks), "\n"), checks)
		}
	}
}

// TestDoctorGSUnreachable: doctor names the connection when nothing
// listens at the endpoint.
func TestDoctorGSUnreachable(t *testing.T) {
	checks, err := Doctor(t.Context(), "gs://bucket?endpoint=http://127.0.0.1:1", "", &DoctorOptions{Timeout: 20e9})
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) == 0 || checks[0].Status != StatusFail || !strings.Contains(checks[0].Detail, "connection refused") {
		t.Fatalf("doctor of an unreachable gs:// endpoint: %+v", checks)
	}
}

// TestPolicyGS: the AWS policy functions refuse a gs:// store, saying
// that there is no bucket policy there (CloudRoles and CloudRole say
// what applies instead, TestCloudRoles).
func TestPolicyGS(t *testing.T) {
	if _, err := BucketPolicy("gs://bucket", ""); !errors.Is(err, ErrNotS3) {
		t.Errorf("BucketPolicy(gs://bucket) = %v; want ErrNotS3", err)
	}
	if _, err := IAMPolicy("writer", "gs://bucket", "", policy.Target{}); !errors.Is(err, ErrNotS3) {
		t.Errorf("IAMPolicy(writer, gs://bucket) = %v; want ErrNotS3", err)
	}
}
