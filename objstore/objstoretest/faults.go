package objstoretest

import (
	"errors"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/faulty"
)

// Every case runs over the backend under test wrapped in driver/faulty,
// so that it can inject faults on backends that have none of their own
// (MinIO, S3). f.Unwrap() reaches the backend past the faults.

// errInjected is an ambiguous error: it matches none of the backend error
// classes, as a timeout or a 5xx would not.
var errInjected = errors.New("objstoretest: injected 503 SlowDown")

// manifestPut returns a rule that gives fault to the next write of
// domain's manifest.
func manifestPut(domain string, fault faulty.Fault) faulty.Rule {
	return faulty.Once(faulty.OpPut, format.ManifestKey(domain), fault)
}

// conflictErr is a 409 ConditionalRequestConflict.
var conflictErr = errors.Join(driver.ErrConflict, errors.New("objstoretest: injected 409"))
