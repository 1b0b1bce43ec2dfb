package config

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// heavyPackages are what a program pays for only when it imports the
// backend that needs them: the cloud SDKs, fence's backends themselves,
// and net/http (file:// and mem:// never speak to a network; the
// backends that do classify its failures in objstore/driver/netfail).
var heavyPackages = []string{
	"net/http",
	"github.com/aws/aws-sdk-go-v2/service/s3",
	"github.com/aws/aws-sdk-go-v2/service/dynamodb",
	"cloud.google.com/go/storage",
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob",
	"github.com/minio/minio-go/v7",
	"github.com/fencedstore/fence/objstore/s3store",
	"github.com/fencedstore/fence/objstore/miniostore",
	"github.com/fencedstore/fence/objstore/gcsstore",
	"github.com/fencedstore/fence/objstore/azblobstore",
	"github.com/fencedstore/fence/coord/dynamocoord",
}

// goListDeps returns the packages that pkgs link, as go list -deps
// prints them; it skips the test when the go command is missing.
func goListDeps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(gobin, append([]string{"list", "-deps"}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", strings.Join(pkgs, " "), err)
	}
	return strings.Fields(string(out))
}

// A program that imports config alone links none of the backends that
// register schemes, nor their SDKs.
func TestConfigLinksNoHeavyBackend(t *testing.T) {
	deps := goListDeps(t, "github.com/fencedstore/fence/config")
	for _, heavy := range heavyPackages {
		if slices.Contains(deps, heavy) {
			t.Errorf("go list -deps ./config lists %s: config links a backend again", heavy)
		}
	}
}

// A program that imports a backend alone does not link config: the
// backends register with config/registry, which is light.
func TestBackendsDoNotLinkConfig(t *testing.T) {
	for _, pkg := range backendImports {
		if slices.Contains(goListDeps(t, pkg), "github.com/fencedstore/fence/config") {
			t.Errorf("go list -deps %s lists package config", pkg)
		}
	}
}
