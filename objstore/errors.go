package objstore

import (
	"errors"
	"fmt"

	"github.com/fencedstore/fence/internal/format"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

// Errors returned by Store. Test for them with errors.Is; the typed errors
// below carry details and are reachable with errors.As.
var (
	// ErrFenced: the write carried a token below the domain's highest
	// accepted token. Its *FencedError names both tokens. It matches
	// fence.ErrStale, the one test for "was I fenced?", which a Holder's
	// writes after the loss of its lease (coord.ErrLeaseLost) match too.
	ErrFenced = rules.Kind("objstore: fenced", rules.ErrStale)
	// ErrOutcomeUnknown: the store may or may not have applied the commit
	// and reading it back could not tell before the caller's context ended or the retries ran out. It is never
	// returned for a commit known to have failed. Retrying with the same
	// commit id (CommitOptions.ID) is safe.
	ErrOutcomeUnknown = errors.New("objstore: outcome unknown")
	// ErrCorruptManifest: a manifest could not be decoded, is empty, has an
	// unknown format version or describes another domain. Its
	// *CorruptManifestError names the object. Nothing is ever written over
	// a corrupt manifest.
	ErrCorruptManifest = errors.New("objstore: corrupt manifest")
	// ErrDataLoss: a version that the domain's current manifest names is
	// missing from the store: it was deleted behind fence's back. Its
	// *DataLossError names the key, the version object and the manifest
	// seq. It does not match ErrNotFound, which means that no such key
	// or domain exists.
	ErrDataLoss = errors.New("objstore: data loss")
	// ErrIntegrity: a version's bytes do not match the size or SHA-256 its
	// manifest records.
	ErrIntegrity = errors.New("objstore: integrity check failed")
	// ErrInvalid: a key, domain, token, holder, TTL or option was
	// rejected before anything was sent. Its *InvalidError names what was
	// wrong. It is the one ErrInvalid to test for, whichever package
	// rejected the argument: coord.ErrInvalid and rules.ErrInvalid are
	// aliases of it (the same value), kept so that old code compiles.
	ErrInvalid = rules.ErrInvalid
	// ErrUnsafeStore: the backend does not honour conditional writes, so
	// fencing cannot work on it.
	ErrUnsafeStore = driver.ErrUnsafeStore
	// ErrEncryptionIgnored: the location asks for server-side encryption
	// (sse=), and the store accepts writes with it but reports them
	// stored without it. The capability probe reports it, before the
	// first write.
	ErrEncryptionIgnored = driver.ErrEncryptionIgnored
	// ErrNotFound: the domain or the key does not exist.
	ErrNotFound = driver.ErrNotFound
	// ErrNoBucket: the store's bucket (an Azure container, a file
	// store's directory) does not exist; `fence init` creates it. It
	// matches ErrPermanent and not ErrNotFound: a missing bucket is never
	// reported as a missing domain or key. Its *NoBucketError names the
	// bucket and where it was looked for.
	ErrNoBucket = driver.ErrNoBucket
	// ErrUnreachable: no request reached the store, and no retry can
	// change that: nothing listens on the endpoint's port, its host name
	// does not resolve, it speaks plain HTTP where https was asked for
	// or the reverse, or its certificate is not trusted. It matches
	// ErrPermanent, so it fails at the first attempt: neither the Store
	// nor the backend's SDK retries it. Its *UnreachableError names the
	// endpoint.
	ErrUnreachable = driver.ErrUnreachable
	// ErrPermanent: the store refused a request and would refuse it
	// again, so it was not retried: permission denied
	// (driver.ErrPermission), no space left (driver.ErrNoSpace), a
	// read-only store (driver.ErrReadOnly), or a request the store
	// rejects, such as a key too long for it. The refused request was
	// not applied (an error that also matches ErrOutcomeUnknown says an
	// earlier write of the commit may have been).
	ErrPermanent = driver.ErrPermanent
)

// NoBucketError reports a missing bucket, container or directory
// (driver.NoBucketError).
type NoBucketError = driver.NoBucketError

// UnreachableError reports an endpoint no request could reach
// (driver.UnreachableError).
type UnreachableError = driver.UnreachableError

// FencedError reports a write rejected because a higher token has already
// been accepted in its domain.
// A fence, or a commit that claims its token (Store.Claim), is also
// rejected when the highest token equals its own but was raised there by
// another commit (ClaimedBy): one token belongs to one acquisition.
type FencedError struct {
	Domain  string
	Token   uint64 // the token the rejected write carried
	Highest uint64 // the domain's highest accepted token
	// ClaimedBy, set only when Highest equals Token, is the id of the
	// commit that raised the domain to that token.
	ClaimedBy string
	// Issued, when set, is the newer token the coordinator issued last
	// for the domain: the write would have raised the domain with a token
	// whose lease has ended (Highest is then 0: not read).
	Issued uint64
	// CommitID is the rejected commit's id, when it had one.
	CommitID string
}

func (e *FencedError) Error() string {
	if e.Issued != 0 {
		return fmt.Sprintf("objstore: write to domain %q fenced: token %d is below token %d, the newest the coordinator issued for it (a newer lease exists)", e.Domain, e.Token, e.Issued)
	}
	if e.Token == e.Highest {
		return fmt.Sprintf("objstore: write to domain %q at token %d refused: the token was already claimed by %s (highest accepted token %d); a coordinator issued it twice, so acquire again for a new one", e.Domain, e.Token, e.claimant(), e.Highest)
	}
	return fmt.Sprintf("objstore: write to domain %q fenced: token %d is below the highest accepted token %d", e.Domain, e.Token, e.Highest)
}

func (e *FencedError) claimant() string {
	if len(e.ClaimedBy) == 32 {
		return "commit " + e.ClaimedBy
	}
	return e.ClaimedBy
}

// Is makes errors.Is(err, ErrFenced) and errors.Is(err, fence.ErrStale)
// true.
func (e *FencedError) Is(target error) bool { return target == ErrFenced || target == rules.ErrStale }

// CorruptManifestError names a manifest object that cannot be trusted.
type CorruptManifestError struct {
	Key    string // the manifest's object key
	Reason string
	Err    error // the decoding error, if any
}

func (e *CorruptManifestError) Error() string {
	s := fmt.Sprintf("objstore: corrupt manifest %q: %s", e.Key, e.Reason)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s + "; " + corruptNextStep
}

// corruptNextStep is what an operator does about a corrupt manifest.
const corruptNextStep = "nothing will be written over it: restore the object from a backup or the bucket's versioning (deleting it does not help: a domain with versions and no manifest is refused too); see docs/manifest.md"

func (e *CorruptManifestError) Is(target error) bool { return target == ErrCorruptManifest }
func (e *CorruptManifestError) Unwrap() error        { return e.Err }

// DataLossError reports a live key whose version object is missing from
// the store, although the domain's current manifest names it.
type DataLossError struct {
	Domain  string
	Key     string
	Version string // the missing version object's key
	Seq     uint64 // the manifest seq that names it
	Err     error  // the backend's answer; not unwrapped: it is ErrNotFound
}

func (e *DataLossError) Error() string {
	return fmt.Sprintf("objstore: data loss: key %q in domain %q is live at manifest seq %d, but its version object %q is missing from the store (deleted outside fence); restore that object from a backup or the bucket's versioning, or write the key again with a fenced put (see docs/manifest.md): %v", e.Key, e.Domain, e.Seq, e.Version, e.Err)
}

func (e *DataLossError) Is(target error) bool { return target == ErrDataLoss }

// corrupt reports a *format.CorruptError as a *CorruptManifestError, and
// returns any other error as it is.
func corrupt(err error) error {
	var fe *format.CorruptError
	if errors.As(err, &fe) {
		return &CorruptManifestError{Key: fe.Key, Reason: fe.Reason, Err: fe.Err}
	}
	return err
}

// InvalidError names an argument that was rejected before anything was
// sent (rules.InvalidError).
type InvalidError = rules.InvalidError

// UnknownOutcomeError reports a commit whose outcome could not be
// determined. Retrying it with the options Retry returns is safe: the
// commit is applied at most once, and the retry reports it landed, fenced
// or (again) unknown exactly as a fresh look at the manifest allows.
type UnknownOutcomeError struct {
	Domain   string
	CommitID string
	Token    uint64
	// After is the manifest seq the commit's earliest uncertain write
	// was based on: if it landed, it landed at a seq above After.
	After uint64
	Err   error // the last error seen
}

// Retry returns the options that retry the commit: its id and After.
func (e *UnknownOutcomeError) Retry() *CommitOptions {
	return &CommitOptions{ID: e.CommitID, After: e.After}
}

func (e *UnknownOutcomeError) Error() string {
	return fmt.Sprintf("objstore: outcome of commit %s to domain %q unknown: %v", e.CommitID, e.Domain, e.Err)
}

func (e *UnknownOutcomeError) Is(target error) bool { return target == ErrOutcomeUnknown }
func (e *UnknownOutcomeError) Unwrap() error        { return e.Err }
