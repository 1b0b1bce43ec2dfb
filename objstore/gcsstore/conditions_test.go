package gcsstore

import (
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/memstore"
)

// gcsNamed is a memory store that names its conditions as gcsstore does.
type gcsNamed struct{ driver.Backend }

func (gcsNamed) Conditions() driver.Conditions { return (&Backend{}).Conditions() }

// TestProbeNamesGenerationPreconditions: a GCS server that ignores
// preconditions is refused in GCS's terms (ifGenerationMatch), never
// S3's (If-None-Match, "S3 conditional writes").
func TestProbeNamesGenerationPreconditions(t *testing.T) {
	err := driver.ProbeConditions(t.Context(), drivertest.IgnoreConditions(gcsNamed{memstore.New()}))
	if !errors.Is(err, driver.ErrUnsafeStore) {
		t.Fatalf("probe of a store that ignores preconditions: %v, want ErrUnsafeStore", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "ifGenerationMatch=0") || !strings.Contains(msg, "generation preconditions") {
		t.Errorf("message does not name GCS's generation preconditions: %s", msg)
	}
	if strings.Contains(msg, "If-None-Match") || strings.Contains(msg, "S3") {
		t.Errorf("message names S3's mechanism on GCS: %s", msg)
	}
}
