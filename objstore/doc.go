// Package objstore makes writes to S3-compatible object storage safe
// against stale lease holders.
//
// Every write carries a fencing token for an ownership domain. The
// domain's manifest object records the highest token accepted; a commit
// uploads its bytes to new write-once version objects, then publishes them
// with one conditional write (If-Match) of the manifest, which also checks
// the token. A holder that paused past its lease and writes with an old
// token gets a *FencedError, and nothing it sent becomes visible.
//
// A Store is concrete and owns all of this: validation, fencing,
// checksums, retries and ambiguity resolution. It sits on a narrow backend
// interface (get, head, conditional put, delete, list) that backends
// implement: memstore (in memory, for tests), filestore (a local
// directory, the embedded default), s3store (aws-sdk-go-v2) and miniostore
// (minio-go). The conformance suites in driver/drivertest and objstoretest
// run against every backend, and driver/faulty wraps any backend to inject
// faults: config.OpenOptions.WrapBackend with faulty.Into puts it under
// the Store that config.Open returns, and faulty.Manifest names a
// domain's manifest in its rules.
//
// # Listing
//
// Store.List and Snapshot.List return every selected key. To page, take
// a Snapshot and call ListPage with ListOptions.Limit, passing each
// Page's Next as the next ListOptions.After until Next is "": the pages
// are consistent with each other, and the last page says it is the last,
// so no extra request is needed. Store.ListPage reads the current
// manifest on each call, so its pages may come from different commits.
//
// # Timing
//
// No operation has a deadline it was not given: a Put of a slow producer,
// or of many gigabytes, lasts as long as the caller's context allows.
// What is bounded is each request, by the backend's per-request timeouts
// (package transport: connect, first byte, idle), and the retries of one
// operation, which end with the caller's context or after 10 pauses
// without success (about 4 seconds of backing off). Safety never depends
// on either: they only decide when an operation gives up. The one
// deadline fence sets itself: a commit refused as stale spends at most
// FencedRecordTimeout (2 s) writing its record (FencedAttempts) before it
// returns, even after its context ended.
//
// # Staged writes
//
// One job's output can be written by many workers and published by one
// commit. A worker calls Store.Stage, which uploads a value under a
// domain and a token to a version object of its own and publishes
// nothing, and hands the returned Receipt (JSON) to the committer. The
// committer passes receipts, from any number of workers, to Commit as
// changes (PutReceipt), beside its own puts and deletes: one manifest
// write publishes all of them, or none. Before it writes anything, the
// commit checks each receipt: its domain and token must be the commit's,
// its object's name must be a staged version's, and it must exist
// with the receipt's size (a HEAD each, at most Options.UploadParallelism
// at once; the checksums are not read back, every read checks them). A
// receipt that fails is refused with a *ReceiptError (ErrReceipt) or an
// *InvalidError naming it; a stale token's commit is a *FencedError as
// any is. Collect never deletes a staged version at the domain's
// current token, whatever the grace: see docs/design.md, "Staged
// versions". One commit of 10,000 receipts is tested, on memstore and
// filestore (TestCommitTenThousandReceipts) and, from 16 processes of
// the fence CLI, on a local directory and MinIO.
//
// # Errors
//
// "Was I fenced?" is errors.Is(err, fence.ErrStale), which ErrFenced
// matches, and so does coord.ErrLeaseLost from a fence.Holder whose
// session ended; the fence package's documentation has the table of
// situations, errors and exit codes, the same whichever layer was used.
//
// Test errors with errors.Is: ErrFenced (*FencedError names both tokens),
// ErrNotFound, ErrOutcomeUnknown (*UnknownOutcomeError carries the commit
// id to retry with), ErrCorruptManifest (*CorruptManifestError names the
// object), ErrDataLoss (*DataLossError: a version the manifest names is
// missing from the store; distinct from ErrNotFound), ErrIntegrity,
// ErrInvalid (*InvalidError names the argument, whichever package
// rejected it: coord.ErrInvalid is an alias; a key too long for the
// backend, its prefix counted, is refused before anything is uploaded),
// ErrUnsafeStore (the backend ignores conditional writes),
// ErrEncryptionIgnored (sse= is set and the store stores plaintext),
// ErrPermanent (the store refused a request for good: permission denied,
// no space left, a read-only store; not retried) and ErrPlainCopy
// (*PlainCopyError: with Options.PlainCopies, the commit landed but some
// plain copies were not written; SyncPlain writes them), and ErrReceipt
// (*ReceiptError: a commit refused a receipt and published nothing).
//
// The manifest format and object layout are described in docs/manifest.md;
// the code that encodes and checks them is internal (internal/format), so
// that nothing but a Store writes a manifest.
package objstore
