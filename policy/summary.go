package policy

import (
	"fmt"
	"strings"
)

// Summary says what each role needs on a GCS bucket or an Azure Blob
// container, for fence policy to print. Bucket policies are S3's: GCS
// and Azure have no counterpart that refuses an unconditional write, so
// their summary is about identities only.
type Summary struct {
	// Cloud is "gcs" or "azure".
	Cloud string `json:"cloud"`
	// Store is gs://BUCKET[/PREFIX] or azblob://CONTAINER[/PREFIX].
	Store string `json:"store"`
	// Roles lists the writer's, the reader's and gc's needs.
	Roles []RoleNeeds `json:"roles"`
	// Admin lists what fence init and fence doctor need besides: give
	// them to an administrator, not to the jobs.
	Admin []Permission `json:"admin"`
	// Steps says how to create and grant a custom role.
	Steps []string `json:"steps"`
}

// RoleNeeds is one role's part of a Summary.
type RoleNeeds struct {
	Role        Role         `json:"role"`
	Permissions []Permission `json:"permissions"`
	Predefined  Predefined   `json:"predefined"`
}

var gcsAdminWhy = map[string]string{
	"storage.buckets.create": "fence init creates the bucket (buckets.insert), in the project GOOGLE_CLOUD_PROJECT names",
	"storage.buckets.get":    "fence init and fence doctor check that the bucket exists (buckets.get)",
}

// Azure control-plane actions of fence init and doctor.
const (
	AzureContainerRead  = "Microsoft.Storage/storageAccounts/blobServices/containers/read"
	AzureContainerWrite = "Microsoft.Storage/storageAccounts/blobServices/containers/write"
)

var azureAdminWhy = map[string]string{
	AzureContainerWrite: "fence init creates the container (Create Container)",
	AzureContainerRead:  "fence init and fence doctor check that the container exists (Get Container Properties)",
}

// GCSAdmin returns what fence init and fence doctor need on GCS besides
// a writer's permissions.
func GCSAdmin() []Permission {
	return pick(gcsAdminWhy, "storage.buckets.create", "storage.buckets.get")
}

// AzureAdmin returns the actions fence init and fence doctor need on
// Azure besides a writer's data actions.
func AzureAdmin() []Permission {
	return pick(azureAdminWhy, AzureContainerWrite, AzureContainerRead)
}

// GCSSummary returns what each role needs on gs://bucket/prefix.
func GCSSummary(bucket, prefix string) Summary {
	s := Summary{Cloud: "gcs", Store: where("gs", bucket, prefix), Admin: GCSAdmin()}
	for _, r := range Roles {
		ps, _ := GCSPermissions(r)
		pre, _ := GCSPredefined(r)
		s.Roles = append(s.Roles, RoleNeeds{Role: r, Permissions: ps, Predefined: pre})
	}
	s.Steps = []string{
		"fence policy --store " + s.Store + " --iam ROLE > role.json   (ROLE: writer, reader or gc)",
		"gcloud iam roles create fence_ROLE --project=PROJECT --file=role.json",
		"gcloud storage buckets add-iam-policy-binding gs://" + bucket + " --member=PRINCIPAL --role=projects/PROJECT/roles/fence_ROLE",
		"GCS grants roles on the whole bucket; narrowing one to the prefix with an IAM condition was not tried",
	}
	return s
}

// AzureSummary returns what each role needs on azblob://container/prefix
// in storage account account ("" when unknown).
func AzureSummary(container, prefix, account string) Summary {
	s := Summary{Cloud: "azure", Store: where("azblob", container, prefix), Admin: AzureAdmin()}
	for _, r := range Roles {
		ps, _ := AzurePermissions(r)
		pre, _ := AzurePredefined(r)
		s.Roles = append(s.Roles, RoleNeeds{Role: r, Permissions: ps, Predefined: pre})
	}
	if account == "" {
		account = "ACCOUNT"
	}
	s.Steps = []string{
		"fence policy --store " + s.Store + " --iam ROLE --azure-scope /subscriptions/SUBSCRIPTION > role.json   (ROLE: writer, reader or gc)",
		"az role definition create --role-definition role.json",
		"az role assignment create --role \"fence ROLE\" --assignee PRINCIPAL --scope " + AzureContainerScope("SUBSCRIPTION", "GROUP", account, container),
		"the role is assigned on the whole container; narrowing it to the prefix with a role assignment condition was not tried",
	}
	return s
}

// Text renders s for people.
func (s Summary) Text() string {
	var b strings.Builder
	cloud := map[string]string{"gcs": "Google Cloud Storage", "azure": "Azure Blob Storage"}[s.Cloud]
	fmt.Fprintf(&b, "What fence needs on %s (%s).\n", s.Store, cloud)
	fmt.Fprintf(&b, "Bucket policies are S3's: %s has none that refuses an unconditional write.\n", cloud)
	for _, r := range s.Roles {
		fmt.Fprintf(&b, "\n%s (least privilege: a custom role, fence policy --iam %s)\n", r.Role, r.Role)
		for _, p := range r.Permissions {
			fmt.Fprintf(&b, "  %s\n      %s\n", p.Name, p.Why)
		}
		fmt.Fprintf(&b, "  predefined role instead: %s (%s)\n", r.Predefined.Name, r.Predefined.Note)
	}
	fmt.Fprintf(&b, "\nadministrator (fence init, fence doctor), besides a writer's:\n")
	for _, p := range s.Admin {
		fmt.Fprintf(&b, "  %s\n      %s\n", p.Name, p.Why)
	}
	fmt.Fprintf(&b, "\nTo create and grant a custom role:\n")
	for _, st := range s.Steps {
		fmt.Fprintf(&b, "  %s\n", st)
	}
	return b.String()
}
