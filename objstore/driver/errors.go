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
	// ErrEncryptionIgnored: the backend asks the store to encrypt what
	// it writes (sse=), and the store accepts such writes but reports
	// them stored without that encryption. Probe reports it.
	ErrEncryptionIgnored = errors.New("objstore: store ignores server-side encryption")
	// ErrPermanent: the store refused the request, and sending it again
	// cannot change the answer (a key too long for the store, a request
	// it calls malformed). Nothing was applied. ErrPermission, ErrNoSpace
	// and ErrReadOnly match it too.
	ErrPermanent = errors.New("objstore: refused by the store")
	// ErrPermission: the store denied access (a file or directory
	// permission; S3's AccessDenied, an unknown access key, a bad
	// signature). Matches ErrPermanent.
	ErrPermission error = permanent("objstore: permission denied")
	// ErrNoSpace: the store has no space left (a full disk; MinIO's
	// XMinioStorageFull). Matches ErrPermanent.
	ErrNoSpace error = permanent("objstore: no space left in the store")
	// ErrReadOnly: the store is read-only (a read-only file system).
	// Matches ErrPermanent.
	ErrReadOnly error = permanent("objstore: store is read-only")
)

// permanent is an error class that also matches ErrPermanent.
type permanent string

func (e permanent) Error() string        { return string(e) }
func (e permanent) Is(target error) bool { return target == ErrPermanent }
