package config

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/policy"
)

// TestCloudRoles: gs:// and azblob:// stores get roles, other stores
// ErrNotCloud; the Azure role needs its scope; a coordinator other than
// bucket leases in the store is refused, since the roles do not cover it.
func TestCloudRoles(t *testing.T) {
	sum, err := CloudRoles("gs://reports/tenant?endpoint=http://127.0.0.1:4443", "")
	if err != nil || sum.Cloud != "gcs" || sum.Store != "gs://reports/tenant" {
		t.Fatalf("CloudRoles(gs) = %+v, %v", sum, err)
	}
	sum, err = CloudRoles("azblob://reports?endpoint=http://127.0.0.1:10000/devstoreaccount1", "")
	if err != nil || sum.Cloud != "azure" || !strings.Contains(strings.Join(sum.Steps, "\n"), "storageAccounts/devstoreaccount1/") {
		t.Fatalf("CloudRoles(azblob) = %+v, %v", sum, err)
	}
	for _, u := range []string{"s3://bucket", "file:///tmp/x", "minio://bucket?endpoint=http://127.0.0.1:9000"} {
		if _, err := CloudRoles(u, ""); !errors.Is(err, ErrNotCloud) {
			t.Errorf("CloudRoles(%s) = %v; want ErrNotCloud", u, err)
		}
		if _, err := CloudRole(policy.Writer, u, "", ""); !errors.Is(err, ErrNotCloud) {
			t.Errorf("CloudRole(%s) = %v; want ErrNotCloud", u, err)
		}
	}

	out, err := CloudRole(policy.Reader, "gs://reports/tenant", "gs://reports/tenant", "")
	var g policy.GCSRole
	if err != nil || json.Unmarshal(out, &g) != nil || len(g.IncludedPermissions) == 0 {
		t.Fatalf("CloudRole(reader, gs) = %s, %v", out, err)
	}
	if _, err := CloudRole(policy.Reader, "gs://reports", "", "/subscriptions/x"); !errors.Is(err, policy.ErrScope) {
		t.Errorf("CloudRole(gs) with an Azure scope = %v; want ErrScope", err)
	}
	if _, err := CloudRole(policy.Writer, "azblob://reports", "", ""); !errors.Is(err, policy.ErrScope) || !strings.Contains(err.Error(), "--azure-scope") {
		t.Errorf("CloudRole(azblob) without a scope = %v; want ErrScope naming --azure-scope", err)
	}
	out, err = CloudRole(policy.Writer, "azblob://reports", "", "/subscriptions/x")
	var a policy.AzureRole
	if err != nil || json.Unmarshal(out, &a) != nil || len(a.DataActions) != 3 || a.AssignableScopes[0] != "/subscriptions/x" {
		t.Fatalf("CloudRole(writer, azblob) = %s, %v", out, err)
	}
	for _, coord := range []string{"dynamodb://leases", "gs://other", "gs://reports/elsewhere"} {
		if _, err := CloudRole(policy.Writer, "gs://reports/tenant", coord, ""); err == nil || !strings.Contains(err.Error(), "cover the store") {
			t.Errorf("CloudRole with coordinator %s = %v; want a refusal", coord, err)
		}
	}
	// No bucket policy there, and the message says what to do instead.
	if _, err := BucketPolicy("azblob://reports", ""); !errors.Is(err, ErrNotS3) || !strings.Contains(err.Error(), "--iam ROLE") {
		t.Errorf("BucketPolicy(azblob) = %v; want ErrNotS3 pointing at --iam", err)
	}
}
