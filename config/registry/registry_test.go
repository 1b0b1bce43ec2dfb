package registry

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore/driver"
)

// mustPanic calls f and fails unless it panics with a message holding
// want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if msg, _ := r.(string); !strings.Contains(msg, want) {
			t.Errorf("panic %v; want one with %q", r, want)
		}
	}()
	f()
}

func TestRegisterOpenerRefuses(t *testing.T) {
	open := func(context.Context, Location) (driver.Backend, error) { return nil, nil }
	bucket := func(context.Context, Location) (Bucket, error) { return nil, nil }
	mustPanic(t, "not a URL form config parses", func() { RegisterOpener("gs", Opener{Open: open, Bucket: bucket}) })
	mustPanic(t, "Open and Bucket are required", func() { RegisterOpener("minio", Opener{Open: open}) })
	RegisterOpener("minio", Opener{Open: open, Bucket: bucket})
	mustPanic(t, "registered twice", func() { RegisterOpener("minio", Opener{Open: open, Bucket: bucket}) })
	if _, ok := LookupOpener("minio"); !ok {
		t.Error("LookupOpener(minio) after RegisterOpener: not found")
	}
	if _, ok := LookupOpener("s3"); ok {
		t.Error("LookupOpener(s3) found an opener nothing registered")
	}
}

func TestRegisterCoordinatorRefuses(t *testing.T) {
	open := func(context.Context, Location) (coord.Driver, error) { return nil, nil }
	table := func(context.Context, Location) (Table, error) { return nil, nil }
	mustPanic(t, "not a coordinator URL form", func() { RegisterCoordinator("s3", Coordinator{Open: open, Table: table}) })
	mustPanic(t, "Open and Table are required", func() { RegisterCoordinator("dynamodb", Coordinator{Table: table}) })
	RegisterCoordinator("dynamodb", Coordinator{Open: open, Table: table, ErrorCode: func(err error) string {
		if errors.Is(err, errCoded) {
			return "Coded"
		}
		return ""
	}})
	mustPanic(t, "registered twice", func() { RegisterCoordinator("dynamodb", Coordinator{Open: open, Table: table}) })
	// ErrorCode asks the registered functions, also through wrapping.
	if got := ErrorCode(errors.Join(errors.New("x"), errCoded)); got != "Coded" {
		t.Errorf("ErrorCode = %q; want Coded", got)
	}
	if got := ErrorCode(errors.New("plain")); got != "" {
		t.Errorf("ErrorCode of a plain error = %q; want none", got)
	}
}

var errCoded = errors.New("coded")

func TestRegisterRefusesBuiltin(t *testing.T) {
	open := func(context.Context, Location) (driver.Backend, error) { return nil, nil }
	for _, name := range Builtin {
		mustPanic(t, "registered twice", func() { Register(name, Scheme{Form: name + "://X", Open: open}) })
	}
}
