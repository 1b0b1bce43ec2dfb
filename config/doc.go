// Package config turns the URLs that the fence CLI and its users pass
// (--store, --coord, FENCE_STORE, FENCE_COORD) into an object-store
// backend and a lease coordinator.
//
// Supported store URLs:
//
//	file://PATH   a local directory, the embedded default. PATH is taken
//	              literally: file://./fence-data is relative to the working
//	              directory, file:///var/lib/fence is absolute.
//	mem://[NAME]  process-local memory, for tests. mem:// is a new empty
//	              store on every open; mem://NAME is shared by every open
//	              of the same NAME in one process.
//
// Supported coordinator URLs:
//
//	""            (empty) lease records kept in the store itself, as
//	              objects beside each domain's manifest (bucket leases).
//	file://PATH   bucket leases in a separate local directory.
//	mem://[NAME]  bucket leases in process-local memory.
//
// Error messages name the URL with any user:password part and any
// secret-looking query values removed (see Redact), so that credentials
// never reach logs.
package config
