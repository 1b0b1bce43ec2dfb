package config

// Azure Blob Storage (azblob://) URLs: parsing, opening, and the
// container Init creates and Doctor checks. Kept apart from the shared
// switches, which call in here with one line each, so that it can move
// to a per-scheme registry as one piece.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/fencedstore/fence/objstore/azblobstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// azblobForm is the form of an azblob URL, for messages.
const azblobForm = "azblob://CONTAINER[/PREFIX][?endpoint=URL&account=NAME]"

// azblobCredentialsHelp says where Azure credentials come from instead
// of URLs.
const azblobCredentialsHelp = "fence takes Azure credentials only from the environment (AZURE_STORAGE_CONNECTION_STRING, " +
	"or AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, or an Azure identity: DefaultAzureCredential), never from URLs; " +
	"a SAS token is a credential too"

// parseAzblob parses what follows "azblob://". It returns a reason
// instead of an error, which ParseURL wraps.
func parseAzblob(rest string) (Location, string) {
	loc := Location{Scheme: "azblob"}
	first := rest[:authorityEnd(rest)]
	switch {
	case strings.Contains(first, "@"), strings.Contains(first, ":") && strings.Contains(rest, "@"):
		return loc, "credentials in URLs are not accepted: " + azblobCredentialsHelp
	case strings.Contains(first, ":"):
		return loc, "a container name has no ':'; the service goes in the endpoint parameter: " + azblobForm
	case strings.Contains(rest, "#"):
		return loc, "azblob:// URLs take no fragment ('#')"
	}
	hostPath, rawQuery, hasQuery := strings.Cut(rest, "?")
	name, path, _ := strings.Cut(hostPath, "/")
	if name == "" {
		return loc, "no container; write " + azblobForm
	}
	if reason := azblobstore.CheckContainerName(name); reason != "" {
		return loc, fmt.Sprintf("container %q: %s", name, reason)
	}
	prefix, reason := checkPrefix(path)
	if reason != "" {
		return loc, reason
	}
	loc.Bucket, loc.Prefix = name, prefix
	if hasQuery {
		if reason := parseQuery(&loc, rawQuery); reason != "" {
			return loc, reason
		}
	}
	return loc, ""
}

// checkAzblobEndpoint accepts http(s)://HOST[:PORT][/ACCOUNT] (Azurite's
// endpoint names the account in its path).
func checkAzblobEndpoint(value string) string {
	if strings.Contains(value, "@") {
		return "endpoint: credentials in URLs are not accepted: " + azblobCredentialsHelp
	}
	if reason := azblobstore.CheckEndpoint(value); reason != "" {
		return fmt.Sprintf("endpoint %q: %s", Redact(value), reason)
	}
	return ""
}

// checkAzblobAccount applies Azure's storage account naming rules: 3 to
// 24 lower-case letters and digits.
func checkAzblobAccount(value string) string {
	ok := len(value) >= 3 && len(value) <= 24
	for _, c := range []byte(value) {
		ok = ok && isAlnum(c)
	}
	if !ok {
		return fmt.Sprintf("account %q: a storage account name is 3 to 24 lower-case letters and digits", value)
	}
	return ""
}

// openAzblob opens the backend of an azblob Location.
func openAzblob(ctx context.Context, loc Location) (driver.Backend, error) {
	return azblobstore.Open(ctx, loc.Bucket, loc.Prefix, &azblobstore.Options{Endpoint: loc.Endpoint, Account: loc.Account})
}

// azblobResource is the container an azblob Location needs.
func azblobResource(ctx context.Context, loc Location) (*resource, error) {
	// Without the prefix: the container is the resource.
	b, err := azblobstore.Open(ctx, loc.Bucket, "", &azblobstore.Options{Endpoint: loc.Endpoint, Account: loc.Account})
	if err != nil {
		return nil, err
	}
	return &resource{kind: "container", name: loc.Bucket, location: b.Location(), store: withPrefix(b.Location(), loc),
		exists: b.ContainerExists, create: b.EnsureContainer}, nil
}

// azblobReached reports whether err came with an answer from the blob
// service.
func azblobReached(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode != 0
}
