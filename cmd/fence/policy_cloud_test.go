package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fencedstore/fence/policy"
)

// fence policy on gs:// and azblob:// stores: what each role needs as
// text or JSON, a custom role definition per role, and usage errors for
// what applies to S3 only. None of it sends a request.
func TestPolicyCloud(t *testing.T) {
	c := newCLI(t)
	c.store = "gs://reports/tenant"
	r := c.want(0, "", "policy")
	for _, want := range []string{"Bucket policies are S3's", "storage.objects.create", "storage.objects.delete", "roles/storage.objectViewer", "storage.buckets.create", "gcloud iam roles create"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("policy on gs:// lacks %q:\n%s", want, r.stdout)
		}
	}
	var sum policy.Summary
	r = c.want(0, "", "--json", "policy")
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || sum.Cloud != "gcs" || len(sum.Roles) != 3 {
		t.Fatalf("policy --json on gs:// printed %q (%v)", r.stdout, err)
	}
	var g policy.GCSRole
	r = c.want(0, "", "policy", "--iam", "reader")
	if err := json.Unmarshal([]byte(r.stdout), &g); err != nil || strings.Join(g.IncludedPermissions, ",") != "storage.objects.get,storage.objects.list,storage.buckets.get" {
		t.Fatalf("policy --iam reader on gs:// printed %q (%v)", r.stdout, err)
	}
	for _, args := range [][]string{{"policy", "--apply"}, {"policy", "--check"}} {
		if r := c.want(2, "", args...); !strings.Contains(r.stderr, "no bucket policy") {
			t.Errorf("%v on gs://: %q", args, r.stderr)
		}
	}
	c.want(2, "", "policy", "--iam", "writer", "--azure-scope", "/subscriptions/x")
	c.want(2, "", "policy", "--azure-scope", "/subscriptions/x")
	if r := c.want(1, "", "--coord", "dynamodb://leases", "policy", "--iam", "writer"); !strings.Contains(r.stderr, "cover the store") {
		t.Errorf("policy --iam with a DynamoDB coordinator on gs://: %q", r.stderr)
	}

	c.store = "azblob://reports/tenant?account=acct"
	r = c.want(0, "", "policy")
	for _, want := range []string{"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write", "Storage Blob Data Reader", "storageAccounts/acct/blobServices/default/containers/reports"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("policy on azblob:// lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := c.want(2, "", "policy", "--iam", "writer"); !strings.Contains(r.stderr, "--azure-scope") {
		t.Errorf("policy --iam on azblob:// without a scope: %q", r.stderr)
	}
	c.want(2, "", "policy", "--iam", "writer", "--azure-scope", "subscriptions/x")
	var a policy.AzureRole
	r = c.want(0, "", "policy", "--iam", "gc", "--azure-scope", "/subscriptions/x/resourceGroups/g")
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil || len(a.DataActions) != 3 || a.AssignableScopes[0] != "/subscriptions/x/resourceGroups/g" {
		t.Fatalf("policy --iam gc on azblob:// printed %q (%v)", r.stdout, err)
	}
}
