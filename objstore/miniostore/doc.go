// Package miniostore is an driver.Backend on MinIO and other
// S3-compatible stores, through github.com/minio/minio-go/v7.
//
// Open connects to an endpoint with credentials from the environment
// only (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, then MINIO_ROOT_USER /
// MINIO_ROOT_PASSWORD, then the AWS shared credentials file): never from
// URLs, and the backend never logs or prints them. New wraps a client you
// configured yourself. Location names the bucket, prefix and endpoint
// ("minio://bucket/prefix@http://host:port"), without credentials, so
// that objstore caches its capability probe per bucket and client
// library.
//
// All keys live under the prefix given to New or Open, used as a folder
// ("tenant" and "tenant/" both put key "k" at "tenant/k"); List strips it.
//
// # Conditional writes and multipart uploads
//
// The put modes driver.Update and driver.Create become minio-go's
// SetMatchETag and SetMatchETagExcept("*"), that is If-Match and
// If-None-Match: *. These bodies are sent with one minio.Core PutObject,
// which, unlike minio.Client's PutObject, never splits a body into parts:
// it is exactly one PUT request, carrying the precondition, so the store
// decides it for the whole object at once:
//
//   - a body held in memory that tells its length (a *bytes.Reader, a
//     *strings.Reader, see s3part.InMemory) of known size up to
//     Options.SinglePutMax (default 64 MiB) or the part size, whichever
//     is larger, sent as it is;
//   - a body that can be rewound (an io.ReadSeeker, such as a file) of
//     known size above the part size and up to SinglePutMax, read once to
//     hash it, rewound and streamed, without a buffer;

//   - any other body of known size up to the part size
//     (Options.PartSize, default 16 MiB), or of unknown size (-1) that
//     ends within one part, read into memory first.
//
// A body that can be read at any offset (an io.ReaderAt) of two whole
// parts or more goes in concurrent parts instead (see Concurrent parts).
//
// Put hashes each of these bodies (SHA-256) before the request and signs
// the request with that hash, so minio-go does not hash the body a second
// time as it sends it (its streaming signature, over plain HTTP); a
// streamed body that changes between the two passes no longer matches
// the signed hash, and the store refuses it. PutHashed
// (driver.HashingPutter) returns the hash, with the body's CRCs computed
// in the same pass, so the Store does not hash the body again either.
// A client created with minio.Options.TrailingHeaders refuses a given
// hash: Put then sends a body held in memory signed as minio-go signs it
// itself, and a body it would stream in a multipart upload instead.
//
// Every other body (of known size above the part size that neither is
// held in memory nor can be rewound, or above SinglePutMax; of unknown
// size, longer than one part) goes in a multipart upload, and not through
// minio.Client's PutObject: as of minio-go v7.4.1 its multipart paths
// (size -1, or a size above its part size) send the custom headers, and
// so the precondition, only with CreateMultipartUpload, and drop them from CompleteMultipartUpload
// (completeUploadOpts keeps only encryption, checksum and internal
// options). MinIO checks the precondition at creation, so the simple case
// looks right, but an object created while the parts upload is then
// silently overwritten at completion (measured). For fence's write-once
// versions and manifests that is a lost write.
//
// Instead Put runs the multipart upload itself through minio.Core:
// NewMultipartUpload, one PutObjectPart per part with two parts in memory
// at a time (the one being sent and the next one being read), then CompleteMultipartUpload with the precondition, which
// minio.Core passes through and MinIO honours (412 on If-None-Match: *
// over an existing object or a stale If-Match, 404 NoSuchKey on If-Match
// of a missing key). The object appears only at completion, and only if
// the precondition holds then. Uploading to a temporary key and copying
// it into place was rejected: the copy is a second request whose support
// for preconditions on the destination varies between stores, and the
// temporary key is a second, visible object to clean up after failures.
//
// # Concurrent parts
//
// A body of known size that can be read at any offset (an io.ReaderAt)
// goes in a multipart upload of concurrent parts, Options.PartConcurrency
// (default 4) at a time, when it has two whole parts or more, or is
// above SinglePutMax: a body held in memory (a *bytes.Reader, a
// *strings.Reader, from its start) and a body that is also an io.Seeker
// (an *os.File, an *io.SectionReader), read from its current offset,
// which Put leaves where it was. Each part is hashed on its own
// goroutine just before it is sent, and signed with its SHA-256; the
// whole body's digest is computed beside the parts; and
// CompleteMultipartUpload carries the precondition, as above. A body
// held in memory is sent without a copy (io.SectionReader over it), and
// the digest reads it once more: it can only change if its owner writes
// to it during Put, a data race, and a part that changed after it was
// hashed is refused by its signature. Any other such body (a file, which
// another process may rewrite) is read exactly once, one part at a time
// into a buffer from which the part is hashed, sent and added to the
// digest, so the digest is of the bytes the store received; Put holds
// at most PartConcurrency+1 such buffers. A body whose length (found by
// seeking to its end) differs from its size goes the sequential way,
// which refuses it; one that turns out shorter while its parts are read
// fails the upload, which is aborted.
//
// minio-go's Client.PutObject sends such a body as concurrent parts of
// 16 MiB, and MinIO takes four concurrent 16 MiB parts faster than one
// 64 MiB PUT. Measured on the local MinIO (BenchmarkOnePutOrParts, 15
// interleaved puts each, median, 2 shared CPUs, load average 2.0 to
// 3.3), one signed PutObject against concurrent parts:
//
//	body     in memory: one PUT / parts    file: one PUT / parts
//	20 MiB        90 / 101 ms                    90 / 96 ms
//	24 MiB        86-104 / 81-111 ms             86-108 / 81-115 ms
//	32 MiB       109-116 / 92-102 ms            110-117 / 95-113 ms
//	48 MiB       163 / 133 ms                   163 / 139 ms
//	64 MiB       221 / 173-180 ms               214-217 / 185-193 ms
//
// So a body of less than two whole parts goes as one PutObject (up to
// SinglePutMax), and one of two whole parts or more as concurrent parts.
// With it, "put 64 MiB" of fence bench on minio:// went from 1.33x its
// floor (minio-go's own Client.PutObject) to 0.98x-1.14x in six runs.
// The cost is a second SHA-256 pass over the body (the parts' and the
// whole body's): the client's CPU for a 64 MiB put rose from about 70 ms
// to 105-122 ms, and its allocations from 91 kB to about 0.3 MB.
//
// If anything fails after NewMultipartUpload (the body, a part, the
// caller's context, the precondition), Put aborts the upload with a
// context detached from the caller's, bounded by one minute, so no parts
// are left behind. A body of unknown size can be at most 10,000 parts
// (156 GiB with the default part size); for a known size the part size
// grows to fit. A body whose length differs from the declared size stores
// nothing.
//
// # Errors
//
// Errors match the objstore classes with errors.Is, and keep minio-go's
// minio.ErrorResponse in the chain for errors.As:
//
//   - 412 PreconditionFailed: driver.ErrPreconditionFailed
//   - 409 ConditionalRequestConflict: driver.ErrConflict
//   - 404 NoSuchKey or NotFound, including If-Match on a missing key:
//     driver.ErrNotFound
//   - NoSuchBucket: driver.ErrNoBucket (a *driver.NoBucketError naming
//     the bucket and the endpoint)
//   - anything else, NoSuchUpload included (a retried completion whose
//     first attempt succeeded gets it): no class, so the Store treats the
//     outcome as ambiguous
//
// Invalid Options make Open fail with rules.ErrInvalid.
//
// # MinIO
//
// SSE ("AES256", "aws:kms") needs a KMS on the MinIO side
// (MINIO_KMS_SECRET_KEY); without one, encrypted writes fail with 501
// NotImplemented. MinIO's listing omits an object "a/b" while an object
// "a" exists (GET and HEAD still find it); fence's own object layout
// never creates such pairs.
package miniostore
