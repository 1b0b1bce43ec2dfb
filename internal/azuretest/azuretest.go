// Package azuretest points a test at the Azurite that
// deploy/local/servers.sh starts, which exports its endpoint, account and
// key, as dynamotest does for the DynamoDB servers.
package azuretest

import (
	"os"
	"testing"

	"github.com/fencedstore/fence/objstore/azblobstore"
)

// The variables deploy/local/servers.sh sets for Azurite.
const (
	EndpointEnv = "FENCE_TEST_AZURE_ENDPOINT" // http://127.0.0.1:PORT/ACCOUNT
	AccountEnv  = "FENCE_TEST_AZURE_ACCOUNT"
	KeyEnv      = "FENCE_TEST_AZURE_KEY"
)

// Use skips t, saying why, when Azurite's variables are not all set;
// otherwise it makes its account and shared key the credentials of the
// environment for t (AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, with no
// connection string to override them), which azblobstore and every
// process t starts read, and returns Azurite's endpoint. what says what
// runs against Azurite, for the skip message.
func Use(t testing.TB, what string) (endpoint string) {
	t.Helper()
	ep, account, key := os.Getenv(EndpointEnv), os.Getenv(AccountEnv), os.Getenv(KeyEnv)
	if ep == "" || account == "" || key == "" {
		t.Skipf("%s against Azurite: %s, %s and %s are not all set; bash deploy/local/test.sh starts Azurite and sets them", what, EndpointEnv, AccountEnv, KeyEnv)
	}
	t.Setenv(azblobstore.EnvConnectionString, "")
	t.Setenv(azblobstore.EnvAccount, account)
	t.Setenv(azblobstore.EnvKey, key)
	return ep
}
