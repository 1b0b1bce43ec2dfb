// Package filestore is an driver.Backend over a local directory: fence's
// embedded default.
//
// # Guarantees
//
// Conditional writes are atomic across goroutines and across OS processes
// on one machine. A Put streams its body to a temporary file (memory use
// does not grow with the object), syncs it, then takes an exclusive flock
// on one of 256 lock files chosen by the key's hash, checks the
// precondition, renames the file into place and syncs the directory. A
// reader therefore always sees one whole version, and a Put that returned
// survives a crash. Delete takes the same lock.
//
// flock and rename are only as atomic as the filesystem makes them: use a
// local filesystem, never NFS, SMB or another network filesystem, and do
// not share one directory between machines. Open fails on platforms
// without flock.
//
// # Layout
//
//	<dir>/.fence-locks/00 ... ff        lock files, created on demand
//	<dir>/.fence-tmp/put-<random>       bodies being written
//	<dir>/d.<segment>/.../f.<segment>   objects
//
// Each "/"-separated segment of a key but the last is a directory named
// "d." followed by the escaped segment; the last is a file named "f."
// followed by the escaped segment. Escaping replaces every byte outside
// [a-z0-9._-] with %XX (upper-case hex), upper-case letters included, so
// the mapping is injective even on case-insensitive filesystems: keys "a"
// and "a/b" coexist, as do "A" and "a", and names such as "con", "..",
// ".fence-tmp" or "%41" cannot clash with anything. A segment may be at
// most MaxSegmentLen (240) bytes once escaped, that is 240 bytes of
// [a-z0-9._-] or 80 bytes of anything else; longer segments are rejected
// with rules.ErrInvalid. With its "d." or "f." prefix a file name is
// then at most 242 bytes, under the 255-byte limit of common
// filesystems. Empty segments are allowed, an empty key is not.
//
// A Store writes each key's bytes to a version object whose last segment
// is the key's last segment plus "@", a 20-digit token, "-" and a 32-digit
// attempt id: 56 bytes more once escaped ("@" is "%40"). So the last
// segment of a key written through a Store may be at most 184 bytes of
// [a-z0-9._-], or 61 bytes of anything else. Backend implements
// driver.KeyChecker, and the Store refuses a longer key before it
// uploads anything, with an error naming the key and the limit.
//
// Each object file starts with the 72-byte header "FENCE1 " + the
// SHA-256 of the content in 64 lower-case hex digits + "\n", and the
// content follows. The hex digest is the ETag, so Get and Head never
// re-hash. A file with a bad header is reported as an error naming the
// file, never as data.
//
// Nothing but this package should write inside the directory. Files and
// directories whose names do not start with "d." or "f." are ignored.
//
// A Put holds a flock on its temporary file until the file is renamed
// into place or removed. When a writer dies mid-Put (killed, crashed, or
// the machine lost power), the kernel drops that flock, and the next Open
// of the directory, in any process, removes the file. Open leaves alone
// temporary files younger than a minute and those whose flock a live
// process holds.
//
// # Errors
//
// A missing object, and If-Match on a missing key, are reported with
// errors matching driver.ErrNotFound, unless the directory itself is
// gone (removed after Open), which is driver.ErrNoBucket; a failed
// precondition with
// driver.ErrPreconditionFailed. A full disk or an exceeded quota (ENOSPC,
// EDQUOT) is driver.ErrNoSpace, a refused permission (EACCES, EPERM)
// driver.ErrPermission and a read-only file system (EROFS)
// driver.ErrReadOnly; all three match driver.ErrPermanent, so the Store
// fails at once instead of retrying. Errors name the key, and the file
// when a file is at fault.
package filestore
