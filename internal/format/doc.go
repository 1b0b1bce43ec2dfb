// Package format is fence's object layout and on-disk format: the key of
// every object fence writes for a domain, the manifest (format v1 and v2),
// its shards and the floor marker, their canonical encodings and the
// checks a decoder runs before anything is trusted. docs/manifest.md
// describes the format for readers of the bucket.
//
// It is internal: users read and write through objstore.Store, which
// alone decides what a manifest means (a commit is validate, decide,
// upload, apply, conditional write). The package does no I/O, except
// through the shard loader a State is given and in ReadManifest, which
// tests and diagnostics use to look at a bucket.
package format
