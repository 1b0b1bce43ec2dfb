// Package gcsstore is a driver.Backend on Google Cloud Storage, through
// cloud.google.com/go/storage (the JSON API for writes and metadata, the
// SDK's default for reads).
//
// Open uses Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS,
// gcloud auth application-default login, the metadata server) and fails,
// naming the cause, when there are none. With Options.Endpoint (an
// emulator such as fake-gcs-server) it sends no credentials at all and
// talks to ENDPOINT/storage/v1/, as the SDK does for
// STORAGE_EMULATOR_HOST. Credentials never come from URLs or options.
// Location names the bucket, prefix and endpoint
// ("gs://bucket/prefix@https://storage.googleapis.com").
//
// All keys live under the prefix given to New or Open, used as a folder;
// List strips it.
//
// # Conditional writes
//
// The driver's ETag of an object is its generation, in decimal. The put
// mode driver.Create becomes ifGenerationMatch=0 (Conditions.DoesNotExist)
// and driver.Update{ETag} becomes ifGenerationMatch=GENERATION on the
// upload. An Update whose ETag is no positive generation fails with
// driver.ErrPreconditionFailed without a request: a generation match of
// 0 would be no condition at all to the SDK.
//
// A body that fits in one chunk (Options.ChunkSize, default 16 MiB) is
// sent with one request, from a buffer of the smallest multiple of
// 256 KiB that holds it when its size is known: the SDK allocates a
// whole chunk for every upload, and a 1 KiB manifest write would
// allocate 16 MiB (TestSmallPutSmallBuffer). A larger one, or one of unknown size that turns
// out larger, is streamed in a resumable upload, one chunk in memory at a
// time; the precondition is sent when the upload starts and GCS checks it
// again when the last chunk makes the object appear, so a write whose
// precondition stops holding while its chunks upload fails with 412
// (TestResumablePreconditions). The backend does not implement
// driver.MultipartPutter: the SDK sends a body that fits in one chunk in
// one request, so the probe's one-byte writes cannot take the resumable
// path; the resumable path's preconditions are proven by that test
// instead. A body whose length differs from the declared size stores
// nothing: the upload is abandoned before its last request.
//
// The SDK retries a conditional upload after a 429, a 5xx or a lost
// connection; Options.MaxAttempts bounds all the requests of one Put (the
// SDK by itself would retry until the context ends).
//
// Get is one request (an XML API read, the SDK's default): its response
// names the generation it serves, with the size and the metadata, and the
// SDK pins that generation for any reconnection, so the ETag always names
// the bytes returned. The SDK's XML reads send no ifGenerationNotMatch, so
// with GetOptions.IfNoneMatch Get compares the generation served and
// answers driver.ErrNotModified itself: an unchanged manifest costs its
// transfer in the one round trip (TestGetOneRequest counts the requests).
// Reading the attributes first, as Get once did, cost a second round trip
// for every cold read, and a retry when the object was replaced between
// the two. CheckKey refuses a key whose object name, with the
// prefix, is over GCS's 1024 bytes.
//
// # Errors
//
// Errors match the driver classes with errors.Is and keep the SDK's error
// (*googleapi.Error) in the chain:
//
//   - 412 conditionNotMet: driver.ErrPreconditionFailed
//   - 404, storage.ErrObjectNotExist: driver.ErrNotFound; an Update of a
//     missing object: driver.ErrPreconditionFailed
//   - a missing bucket: driver.ErrNoBucket, a *driver.NoBucketError
//     naming the bucket and the endpoint (a 404 does not say which is missing on every
//     store, so the backend asks, with one more request, on that path)
//   - 401 and 403: driver.ErrPermission (a 401 names the credentials)
//   - 400 and 413: driver.ErrPermanent
//   - 429 (rateLimitExceeded; more than about one write per second to
//     one object name): ErrRateLimited, no driver class, so the Store
//     backs off, reads back and decides again; never a failed
//     precondition or a fenced write
//   - anything else (5xx, no connection): no class, ambiguous
//
// Invalid Options, and bucket names that are not GCS bucket names, make
// Open and New fail with rules.ErrInvalid.
//
// # fake-gcs-server
//
// Measured on the pinned fake-gcs-server (deploy/local/servers.sh):
// ifGenerationMatch=0 and a stale ifGenerationMatch are refused with 412
// on the SDK's one-request and resumable uploads, also when the
// precondition stops holding while a resumable upload's chunks upload,
// and on uploadType=media (its issue #994, fixed in the pinned release;
// checked by hand with curl, as the SDK never sends uploadType=media);
// a read pinned to a replaced generation finds nothing. It answers
// "Not Found" for a missing bucket and a missing object alike. It ignores
// conditions on reads (x-goog-if-generation-match, its issue #1076);
// this backend sends none.
package gcsstore
