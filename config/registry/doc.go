// Package registry holds the URL schemes that package config parses and
// opens, registered by the packages that implement them, as gocloud's
// blob.URLMux holds the openers that blob/s3blob and blob/gcsblob
// register. A backend's register.go calls Register (or RegisterOpener,
// RegisterCoordinator for the URL forms config parses itself) from an
// init function, so that a program links a backend only when it imports
// that backend's package, usually with a blank import:
//
//	import _ "github.com/fencedstore/fence/objstore/s3store"
//
// The registry lives here, apart from config, because config's own
// tests import the backends: a backend that imported config would make
// an import cycle. It depends on nothing heavier than the driver and
// coord interfaces. Programs use config, which re-exports Register,
// Scheme, Bucket and Location.
package registry
