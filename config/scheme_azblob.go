package config

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/fencedstore/fence/objstore/azblobstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// azblob://CONTAINER[/PREFIX][?endpoint=URL&account=NAME]: Azure Blob
// Storage through objstore/azblobstore, with credentials from the
// environment, or an emulator (Azurite) at endpoint, which may end in
// the account (http://127.0.0.1:10000/devstoreaccount1).
func init() {
	Register("azblob", Scheme{
		Form:   azblobForm,
		Params: []string{"endpoint", "account"},
		Kind:   "container",
		CredentialsHelp: "fence takes Azure credentials only from the environment (AZURE_STORAGE_CONNECTION_STRING, " +
			"or AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, or an Azure identity: DefaultAzureCredential), never from URLs; " +
			"a SAS token is a credential too",
		CheckBucket:   checkAzblobContainer,
		CheckEndpoint: checkAzblobEndpoint,
		Validate:      checkAzblobAccount,
		Open: func(ctx context.Context, loc Location) (driver.Backend, error) {
			return azblobstore.Open(ctx, loc.Bucket, loc.Prefix, azblobOptions(loc))
		},
		Bucket: func(ctx context.Context, loc Location) (Bucket, error) {
			// Without the prefix: the container is what Init creates.
			b, err := azblobstore.Open(ctx, loc.Bucket, "", azblobOptions(loc))
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

func azblobOptions(loc Location) *azblobstore.Options {
	return &azblobstore.Options{Endpoint: loc.Endpoint, Account: loc.Account}
}

// checkAzblobContainer applies Azure's container naming rules.
func checkAzblobContainer(name string) string {
	if name == "" {
		return "no container; write " + azblobForm
	}
	if reason := azblobstore.CheckContainerName(name); reason != "" {
		return fmt.Sprintf("container %q: %s", name, reason)
	}
	return ""
}

// checkAzblobEndpoint accepts http(s)://HOST[:PORT][/ACCOUNT] (Azurite's
// endpoint names the account in its path).
func checkAzblobEndpoint(value string) string {
	if reason := azblobstore.CheckEndpoint(value); reason != "" {
		return fmt.Sprintf("endpoint %q: %s", Redact(value), reason)
	}
	return ""
}

// checkAzblobAccount applies Azure's storage account naming rules to
// account=: 3 to 24 lower-case letters and digits.
func checkAzblobAccount(loc Location) string {
	if loc.Account == "" {
		return ""
	}
	ok := len(loc.Account) >= 3 && len(loc.Account) <= 24
	for _, c := range []byte(loc.Account) {
		ok = ok && isAlnum(c)
	}
	if !ok {
		return fmt.Sprintf("account %q: a storage account name is 3 to 24 lower-case letters and digits", loc.Account)
	}
	return ""
}

// azblobContainer is the container Init creates and Doctor checks.
type azblobContainer struct{ *azblobstore.Backend }

func (c azblobContainer) BucketExists(ctx context.Context) (bool, error) {
	return c.ContainerExists(ctx)
}

func (c azblobContainer) EnsureBucket(ctx context.Context) error { return c.EnsureContainer(ctx) }
