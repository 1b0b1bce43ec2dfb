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
