package driver

import "errors"

// The error classes a backend reports; see the package documentation.
var (
	ErrNotFound           = errors.New("objstore: not found")
	ErrPreconditionFailed = errors.New("objstore: precondition failed")
	ErrConflict           = errors.New("objstore: conditional request conflict")
	ErrNotModified        = errors.New("objstore: not modified")
	// ErrUnsafeStore: the backend does not honour conditional writes, so
	// nothing written to it can be fenced. Probe reports it.
	ErrUnsafeStore = errors.New("objstore: store ignores conditional writes")
)
