// Package driver is the contract an object store implements so that a
// fence Store can fence writes on it: the Backend interface, its put
// modes, its error classes and the capability probe that proves a backend
// honours conditional writes. Users of fence do not call it; they pass a
// Backend (memstore, filestore, s3store, miniostore, or their own) to
// objstore.New, and the Store does everything else.
//
// A Backend only stores bytes. It never implements fencing, retries or
// checksums: the Store owns those. What a backend must do is honour each
// put mode atomically with respect to every other put on the same key,
// and report outcomes with the error classes below. drivertest.Run is the
// suite every backend passes.
//
// # Errors
//
// A backend wraps one of these classes (fmt.Errorf("...: %w", ...)) so
// that errors.Is works, and keeps the underlying SDK error in the chain
// for errors.As:
//
//   - ErrNotFound: the object does not exist.
//   - ErrNoBucket: the bucket (container, directory) does not exist;
//     a *NoBucketError names it. It matches ErrPermanent, not
//     ErrNotFound.
//   - ErrPreconditionFailed: a put's mode did not hold: Create found an
//     object, Update found a different ETag or no object at all. A failed
//     Update is always ErrPreconditionFailed, whatever the store answers
//     for a missing key.
//   - ErrConflict: the store refused to order two concurrent conditional
//     writes to one key (S3's 409 ConditionalRequestConflict). Nothing is
//     known about whether the write was applied.
//   - ErrNotModified: a conditional get found the object unchanged.
//   - ErrPermanent: the store refused the request and will refuse it
//     again (a key too long for it, a malformed request). Nothing was
//     applied, and the Store does not retry it. Three narrower classes
//     match it: ErrPermission (access denied), ErrNoSpace (disk or
//     storage full) and ErrReadOnly (a read-only file system). Report
//     them only for a request known not to have been applied.
//   - ErrUnreachable: no request reached the store, and no retry can
//     change that (connection refused, an unknown host, plain HTTP
//     against TLS or the reverse, an untrusted certificate); Unreachable
//     makes the *UnreachableError that names the endpoint. It matches
//     ErrPermanent. A backend's SDK must not retry it either
//     (IsUnreachable).
//
// A backend wraps an SDK's error for a store's answer with Service, so
// that Brief prints it in one line with the service's error code.
//
// Any other error from Put may hide a write that was applied; the Store
// treats it as ambiguous and settles it by reading.
//
// A backend whose object keys are limited beyond what rules.ValidateKey
// checks (a key prefix that counts towards S3's 1024 bytes, a file name
// limit) implements KeyChecker, so that the Store refuses such a key
// before it uploads anything.
package driver
