package azblobstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/fencedstore/fence/config/registry"
	"github.com/fencedstore/fence/objstore/driver"
)

// azblob://CONTAINER[/PREFIX][?endpoint=URL&account=NAME]: Azure Blob
// Storage, with credentials from the environment, or an emulator
// (Azurite) at endpoint, which may end in the account
// (http://127.0.0.1:10000/devstoreaccount1). A program that imports this
// package (import _ "github.com/fencedstore/fence/objstore/azblobstore")
// has package config open azblob:// URLs.
func init() {
	registry.Register("azblob", registry.Scheme{
		Form:   azblobForm,
		Params: []string{"endpoint", "account"},
		Kind:   "container",
		CredentialsHelp: "fence takes Azure credentials only from the environment (AZURE_STORAGE_CONNECTION_STRING, " +
			"or AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, or an Azure identity: DefaultAzureCredential), never from URLs; " +
			"a SAS token is a credential too",
		CheckBucket:   checkAzblobContainer,
		CheckEndpoint: checkAzblobEndpoint,
		Validate:      checkAzblobAccount,
		Open: func(ctx context.Context, loc registry.Location) (driver.Backend, error) {
			return Open(ctx, loc.Bucket, loc.Prefix, azblobOptions(loc))
		},
		Bucket: func(ctx context.Context, loc registry.Location) (registry.Bucket, error) {
			// Without the prefix: the container is what Init creates.
			b, err := Open(ctx, loc.Bucket, "", azblobOptions(loc))
			if err != nil {
				return nil, err
			}
			return azblobContainer{b}, nil
		},
		Reached: func(err error) bool {
			var re *azcore.ResponseError
			return errors.As(err, &re) && re.StatusCode != 0
		},
	})
}

// azblobForm is the form of an azblob URL, for messages.
const azblobForm = "azblob://CONTAINER[/PREFIX][?endpoint=URL&account=NAME]"

func azblobOptions(loc registry.Location) *Options {
	return &Options{Endpoint: loc.Endpoint, Account: loc.Account}
}

// checkAzblobContainer applies Azure's container naming rules.
func checkAzblobContainer(name string) string {
	if name == "" {
		return "no container; write " + azblobForm
	}
	if reason := CheckContainerName(name); reason != "" {
		return fmt.Sprintf("container %q: %s", name, reason)
	}
	return ""
}

// checkAzblobEndpoint accepts http(s)://HOST[:PORT][/ACCOUNT] (Azurite's
// endpoint names the account in its path).
func checkAzblobEndpoint(value string) string {
	if reason := CheckEndpoint(value); reason != "" {
		return fmt.Sprintf("endpoint %q: %s", registry.Redact(value), reason)
	}
	return ""
}

// checkAzblobAccount applies Azure's storage account naming rules to
// account=: 3 to 24 lower-case letters and digits.
func checkAzblobAccount(loc registry.Location) string {
	if loc.Account == "" {
		return ""
	}
	ok := len(loc.Account) >= 3 && len(loc.Account) <= 24
	for _, c := range []byte(loc.Account) {
		ok = ok && (c >= 'a' && c <= 'z' || c >= '0' && c <= '9')
	}
	if !ok {
		return fmt.Sprintf("account %q: a storage account name is 3 to 24 lower-case letters and digits", loc.Account)
	}
	return ""
}

// azblobContainer is the container Init creates and Doctor checks.
type azblobContainer struct{ *Backend }

func (c azblobContainer) BucketExists(ctx context.Context) (bool, error) {
	return c.ContainerExists(ctx)
}

func (c azblobContainer) EnsureBucket(ctx context.Context) error { return c.EnsureContainer(ctx) }
