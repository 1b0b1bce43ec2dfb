package registry

import (
	"context"
	"fmt"

	"github.com/fencedstore/fence/coord"
)

// Coordinator opens the lease coordinators of a coordinator-only scheme
// whose URL form config parses itself: dynamodb://, registered by
// coord/dynamocoord. (Store URLs as coordinators need no registration:
// config keeps their lease records with coord/bucketlease.)
type Coordinator struct {
	// Open opens the coordinator's driver. It sends no request.
	Open func(ctx context.Context, loc Location) (coord.Driver, error)
	// Table returns what Init creates and Doctor checks. It sends no
	// request.
	Table func(ctx context.Context, loc Location) (Table, error)
	// Reached reports whether err, from the Table's methods or its
	// driver's, came with an answer from the server rather than from no
	// connection, a timeout or missing credentials. nil means never.
	Reached func(err error) bool
	// ErrorCode returns the service's error code in err ("" for none),
	// with which config recognises a refused credential. nil means none.
	ErrorCode func(err error) string
}

// Table is a coordinator's table, which Init creates and Doctor checks.
type Table interface {
	// Location names the table and where it is, without credentials.
	Location() string
	// Exists reports whether the table exists: (false, nil) when it
	// does not; an error when it exists and cannot be used.
	Exists(ctx context.Context) (bool, error)
	// Create creates the table, and returns once it can be used.
	Create(ctx context.Context) error
	// Check returns why the table cannot be used, or nil.
	Check(ctx context.Context) error
	// Driver is a lease driver on the table.
	Driver() coord.Driver
}

// RegisterCoordinator registers how to open the coordinators of scheme
// name, "dynamodb". It panics for another name, a second registration or
// a nil Open or Table: call it from an init function.
func RegisterCoordinator(name string, c Coordinator) {
	mu.Lock()
	defer mu.Unlock()
	_, dup := coordinators[name]
	switch {
	case name != "dynamodb":
		panic(fmt.Sprintf("config: RegisterCoordinator: %q is not a coordinator URL form config parses (dynamodb)", name))
	case dup:
		panic(fmt.Sprintf("config: RegisterCoordinator: scheme %q registered twice", name))
	case c.Open == nil || c.Table == nil:
		panic(fmt.Sprintf("config: RegisterCoordinator(%q): Open and Table are required", name))
	}
	coordinators[name] = c
}

// LookupCoordinator returns the Coordinator registered for scheme name.
func LookupCoordinator(name string) (Coordinator, bool) {
	mu.RLock()
	defer mu.RUnlock()
	c, ok := coordinators[name]
	return c, ok
}
