package policy_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fencedstore/fence/policy"
)

// TestGCSRoleShape: the GCS custom role is the IAM API's Role resource as
// gcloud iam roles create --file reads it, with no wildcard, and the
// reader's permissions are a subset of the writer's.
func TestGCSRoleShape(t *testing.T) {
	for _, r := range policy.Roles {
		role, err := policy.GCS(r, "reports", "/tenant/")
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := json.Unmarshal(role.JSON(), &back); err != nil {
			t.Fatal(err)
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range back {
				if !yield(k) {
					return
				}
			}
		})
		if want := []string{"description", "includedPermissions", "stage", "title"}; !slices.Equal(keys, want) {
			t.Errorf("%s: keys %v, want %v", r, keys, want)
		}
		if role.Stage != "GA" || !strings.Contains(role.Description, "gs://reports/tenant") || len(role.Title) > 100 || len(role.Description) > 256 {
			t.Errorf("%s: %s", r, role.JSON())
		}
		for _, p := range role.IncludedPermissions {
			if strings.Contains(p, "*") || !strings.HasPrefix(p, "storage.") {
				t.Errorf("%s: permission %q", r, p)
			}
		}
	}
	w, _ := policy.GCSPermissions(policy.Writer)
	rd, _ := policy.GCSPermissions(policy.Reader)
	for _, p := range rd {
		if !slices.ContainsFunc(w, func(q policy.Permission) bool { return q.Name == p.Name }) {
			t.Errorf("the reader's %s is not the writer's", p.Name)
		}
	}
	if slices.ContainsFunc(rd, func(p policy.Permission) bool {
		return p.Name != "storage.objects.get" && p.Name != "storage.objects.list" && p.Name != "storage.buckets.get"
	}) {
		t.Errorf("the reader may write: %v", rd)
	}
	if _, err := policy.GCS("admin", "b", ""); err == nil {
		t.Error("an unknown role was accepted")
	}
}

// TestAzureRoleShape: the Azure custom role has the fields az role
// definition create reads, data actions only, and needs a real scope.
func TestAzureRoleShape(t *testing.T) {
	for _, r := range policy.Roles {
		role, err := policy.Azure(r, "reports", "tenant", "/subscriptions/00000000-0000-0000-0000-000000000000")
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := json.Unmarshal(role.JSON(), &back); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"Name", "IsCustom", "Description", "Actions", "NotActions", "DataActions", "NotDataActions", "AssignableScopes"} {
			if _, ok := back[k]; !ok {
				t.Errorf("%s: no %s in %s", r, k, role.JSON())
			}
		}
		if !role.IsCustom || len(role.Actions) != 0 || len(role.DataActions) == 0 || !strings.Contains(role.Description, "azblob://reports/tenant") {
			t.Errorf("%s: %s", r, role.JSON())
		}
		for _, a := range role.DataActions {
			if strings.Contains(a, "*") || !strings.HasPrefix(a, "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/") {
				t.Errorf("%s: data action %q", r, a)
			}
		}
	}
	rd, _ := policy.Azure(policy.Reader, "c", "", "/subscriptions/x")
	if !slices.Equal(rd.DataActions, []string{policy.AzureBlobRead}) {
		t.Errorf("reader data actions %v", rd.DataActions)
	}
	for _, scope := range []string{"", "subscriptions/x", "/resourceGroups/g"} {
		if _, err := policy.Azure(policy.Writer, "c", "", scope); !errors.Is(err, policy.ErrScope) {
			t.Errorf("scope %q: %v, want ErrScope", scope, err)
		}
	}
}

// TestCloudSummaries: the summaries name every role, permission and
// predefined role, and say that bucket policies are S3's.
func TestCloudSummaries(t *testing.T) {
	for _, s := range []policy.Summary{policy.GCSSummary("reports", "tenant"), policy.AzureSummary("reports", "tenant", "acct")} {
		text := s.Text()
		if len(s.Roles) != len(policy.Roles) || len(s.Admin) == 0 || !strings.Contains(text, "Bucket policies are S3's") {
			t.Errorf("%s summary:\n%s", s.Cloud, text)
		}
		for _, r := range s.Roles {
			if !strings.Contains(text, "\n"+string(r.Role)+" ") || !strings.Contains(text, r.Predefined.Name) {
				t.Errorf("%s: the text lacks role %s or %s:\n%s", s.Cloud, r.Role, r.Predefined.Name, text)
			}
			for _, p := range r.Permissions {
				if !strings.Contains(text, p.Name) || p.Why == "" {
					t.Errorf("%s: %s's %s missing or unexplained", s.Cloud, r.Role, p.Name)
				}
			}
		}
	}
	if az := policy.AzureSummary("reports", "", "acct").Text(); !strings.Contains(az, "storageAccounts/acct/blobServices/default/containers/reports") {
		t.Errorf("the Azure summary does not name the container's scope:\n%s", az)
	}
}
