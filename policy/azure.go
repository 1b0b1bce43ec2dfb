package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrScope: an Azure custom role's assignable scope is missing or is not
// one.
var ErrScope = errors.New("policy: Azure assignable scope")

// The Azure RBAC data actions fence's azblobstore needs, and why: the
// Blob service operations it calls need the actions Microsoft lists for
// them
// (https://learn.microsoft.com/en-us/rest/api/storageservices/authorize-with-azure-active-directory#permissions-for-blob-service-operations).
const (
	AzureBlobRead   = "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read"
	AzureBlobWrite  = "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write"
	AzureBlobDelete = "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/delete"
)

var azureWhy = map[string]string{
	AzureBlobRead:   "read blobs and list them: Get Blob, Get Blob Properties, List Blobs",
	AzureBlobWrite:  "create and replace blobs: Put Blob, Put Block, Put Block List (blobs/add/action would only create; manifests and lease records are replaced with If-Match)",
	AzureBlobDelete: "delete blobs: the capability probe's, plain copies, superseded versions (Delete Blob)",
}

// AzurePermissions returns the data actions role needs, none of them a
// wildcard: exactly what azblobstore's requests in that role need. No
// control-plane action is needed.
func AzurePermissions(role Role) ([]Permission, error) {
	switch role {
	case Writer, Collector:
		// gc writes floor markers and deletes superseded versions.
		return pick(azureWhy, AzureBlobRead, AzureBlobWrite, AzureBlobDelete), nil
	case Reader:
		return pick(azureWhy, AzureBlobRead), nil
	}
	return nil, unknownRole(role)
}

// AzurePredefined returns the built-in Azure role that holds role's data
// actions, as Microsoft's list of built-in roles gives them
// (https://learn.microsoft.com/en-us/azure/role-based-access-control/built-in-roles).
func AzurePredefined(role Role) (Predefined, error) {
	switch role {
	case Writer, Collector:
		return Predefined{Name: "Storage Blob Data Contributor", Note: "blobs read, write and delete, and more: it can also create and delete containers"}, nil
	case Reader:
		return Predefined{Name: "Storage Blob Data Reader", Note: "blobs/read, and containers/read"}, nil
	}
	return Predefined{}, unknownRole(role)
}

// AzureRole is a custom role definition as `az role definition create
// --role-definition FILE` takes it
// (https://learn.microsoft.com/en-us/azure/role-based-access-control/custom-roles-cli).
type AzureRole struct {
	Name             string   `json:"Name"`
	IsCustom         bool     `json:"IsCustom"`
	Description      string   `json:"Description"`
	Actions          []string `json:"Actions"`
	NotActions       []string `json:"NotActions"`
	DataActions      []string `json:"DataActions"`
	NotDataActions   []string `json:"NotDataActions"`
	AssignableScopes []string `json:"AssignableScopes"`
}

// Azure returns the custom role of role for the store
// azblob://container/prefix, assignable at scope ("/subscriptions/ID",
// or a resource group or management group under it). Assign it at the
// container's scope.
func Azure(role Role, container, prefix, scope string) (AzureRole, error) {
	ps, err := AzurePermissions(role)
	if err != nil {
		return AzureRole{}, err
	}
	if container == "" {
		return AzureRole{}, fmt.Errorf("policy: no container")
	}
	if !strings.HasPrefix(scope, "/subscriptions/") && !strings.HasPrefix(scope, "/providers/Microsoft.Management/managementGroups/") {
		return AzureRole{}, fmt.Errorf("%w %q: want /subscriptions/ID[/resourceGroups/GROUP] or /providers/Microsoft.Management/managementGroups/ID", ErrScope, scope)
	}
	return AzureRole{
		Name:             "fence " + string(role),
		IsCustom:         true,
		Description:      fmt.Sprintf("What fence's %s needs on %s (fence policy --iam %s)", role, where("azblob", container, prefix), role),
		Actions:          []string{},
		NotActions:       []string{},
		DataActions:      names(ps),
		NotDataActions:   []string{},
		AssignableScopes: []string{scope},
	}, nil
}

// JSON returns r indented, with a final newline.
func (r AzureRole) JSON() []byte {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic(err) // an AzureRole always encodes
	}
	return append(b, '\n')
}

// AzureContainerScope is the scope to assign a role at so that it covers
// one container, as Microsoft documents it.
func AzureContainerScope(subscription, group, account, container string) string {
	return "/subscriptions/" + subscription + "/resourceGroups/" + group + "/providers/Microsoft.Storage/storageAccounts/" + account + "/blobServices/default/containers/" + container
}
