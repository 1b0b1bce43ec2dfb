package policy

import (
	"encoding/json"
	"fmt"
)

// The GCS permissions fence's gcsstore needs, and why. The JSON API
// method each request calls needs the permissions Google lists for it
// (https://cloud.google.com/storage/docs/access-control/iam-json);
// objects.insert also needs storage.objects.delete when it replaces an
// existing object
// (https://cloud.google.com/storage/docs/json_api/v1/objects/insert).
var gcsWhy = map[string]string{
	"storage.objects.get":    "read objects and their metadata: manifests, lease records, versions, shards, floor markers (objects.get)",
	"storage.objects.list":   "list under the store's prefix: a domain's versions, history, a missing manifest (objects.list)",
	"storage.objects.create": "write objects: versions, shards, manifests, lease records, probe objects (objects.insert, single-request and resumable)",
	"storage.objects.delete": "replace objects (GCS asks for it on every overwrite, and each manifest and lease-record commit is one) and delete objects (the capability probe's, plain copies, superseded versions) (objects.delete)",
	"storage.buckets.get":    "tell a missing bucket from a missing object after a 404 (buckets.get)",
}

// GCSPermissions returns the GCS permissions role needs, none of them a
// wildcard: exactly what gcsstore's requests in that role need.
func GCSPermissions(role Role) ([]Permission, error) {
	switch role {
	case Writer, Collector:
		// gc writes floor markers and deletes superseded versions: a
		// writer's permissions.
		return pick(gcsWhy, "storage.objects.get", "storage.objects.list", "storage.objects.create", "storage.objects.delete", "storage.buckets.get"), nil
	case Reader:
		return pick(gcsWhy, "storage.objects.get", "storage.objects.list", "storage.buckets.get"), nil
	}
	return nil, unknownRole(role)
}

// GCSPredefined returns the predefined GCS role that holds role's
// permissions, as Google's reference of the Storage roles lists them
// (https://cloud.google.com/java/docs/reference/google-cloud-storage/latest/com.google.cloud.storage.StorageRoles).
func GCSPredefined(role Role) (Predefined, error) {
	switch role {
	case Writer, Collector:
		return Predefined{Name: "roles/storage.objectAdmin", Note: "storage.objects.*: more than fence needs (it also sets object ACLs), and no storage.buckets.get"}, nil
	case Reader:
		return Predefined{Name: "roles/storage.objectViewer", Note: "storage.objects.get and storage.objects.list, no storage.buckets.get"}, nil
	}
	return Predefined{}, unknownRole(role)
}

// GCSRole is a custom role definition in the form of the IAM API's Role
// resource, which `gcloud iam roles create ROLE_ID --project=PROJECT
// --file=FILE` takes as JSON or YAML
// (https://cloud.google.com/sdk/gcloud/reference/iam/roles/create).
type GCSRole struct {
	Title               string   `json:"title"`
	Description         string   `json:"description"`
	Stage               string   `json:"stage"`
	IncludedPermissions []string `json:"includedPermissions"`
}

// GCS returns the custom role of role for the store gs://bucket/prefix.
// GCS grants it on the whole bucket: bind it there.
func GCS(role Role, bucket, prefix string) (GCSRole, error) {
	ps, err := GCSPermissions(role)
	if err != nil {
		return GCSRole{}, err
	}
	if bucket == "" {
		return GCSRole{}, fmt.Errorf("policy: no bucket")
	}
	return GCSRole{
		Title:               "fence " + string(role),
		Description:         fmt.Sprintf("What fence's %s needs on %s (fence policy --iam %s)", role, where("gs", bucket, prefix), role),
		Stage:               "GA",
		IncludedPermissions: names(ps),
	}, nil
}

// JSON returns r indented, with a final newline.
func (r GCSRole) JSON() []byte {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic(err) // a GCSRole always encodes
	}
	return append(b, '\n')
}
