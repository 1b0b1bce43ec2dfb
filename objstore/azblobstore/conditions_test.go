package azblobstore

import (
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/memstore"
)

// azureNamed is a memory store that names its conditions as azblobstore
// does.
type azureNamed struct{ driver.Backend }

func (azureNamed) Conditions() driver.Conditions { return (&Backend{}).Conditions() }

// TestProbeNamesAzureConditions: a blob service that ignores conditions
// is refused in Azure's terms (Put Blob and Put Block List), never as
// "S3 conditional writes".
func TestProbeNamesAzureConditions(t *testing.T) {
	err := driver.ProbeConditions(t.Context(), drivertest.IgnoreConditions(azureNamed{memstore.New()}))
	if !errors.Is(err, driver.ErrUnsafeStore) {
		t.Fatalf("probe of a store that ignores conditions: %v, want ErrUnsafeStore", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "Put Blob and Put Block List") {
		t.Errorf("message does not name Azure's Put Blob and Put Block List: %s", msg)
	}
	if strings.Contains(msg, "S3") {
		t.Errorf("message names S3 on Azure: %s", msg)
	}
}
