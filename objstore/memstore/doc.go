// Package memstore is an in-memory driver.Backend for tests.
//
// Conditional puts are atomic (one mutex guards the whole store). ETags are
// the hex SHA-256 of the content; callers must treat them as opaque.
// Content is copied in and out, so neither the caller's buffer nor a
// returned reader can change stored bytes.
//
// To make races and lost replies deterministic, wrap it with
// driver/faulty, which delays, pauses or fails calls, or applies them and
// loses their reply:
//
//	mem := memstore.New()
//	b := faulty.New(mem)
//	b.Add(faulty.Once(faulty.OpPut, "d/_fence/manifest.json",
//		faulty.Fault{DropReply: true}))
//
// # Errors
//
// A missing object is reported with driver.ErrNotFound, a failed
// precondition (an Update of a missing key included) with
// driver.ErrPreconditionFailed, a call whose context ended with the
// context's error, each wrapped with the operation and key.
package memstore
