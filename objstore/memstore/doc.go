// Package memstore is an in-memory driver.Backend for tests, with fault
// hooks that make races and lost replies deterministic.
//
// Conditional puts are atomic (one mutex guards the whole store). ETags are
// the hex SHA-256 of the content; callers must treat them as opaque.
// Content is copied in and out, so neither the caller's buffer nor a
// returned reader can change stored bytes.
//
// # Faults
//
// SetHook installs a function that sees every call before it runs and
// returns a Fault: delay or pause the call, fail it without applying it, or
// apply it and then lose the reply (ErrReplyDropped) or replace the reply
// with an error such as a 503 (HTTPError). A hook is called concurrently
// from every goroutine that calls the backend.
//
//	b := memstore.New()
//	b.SetHook(memstore.Once(memstore.OpPut, "d/_fence/manifest.json",
//		memstore.Fault{DropReply: true}))
//
// # Errors
//
// A missing object is reported with driver.ErrNotFound, a failed
// precondition (an Update of a missing key included) with
// driver.ErrPreconditionFailed. Injected errors are returned wrapped
// with the operation and key, so errors.Is and errors.As still see them.
package memstore
