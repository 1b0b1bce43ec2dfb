// Package s3store is an driver.Backend on AWS S3 and S3-compatible
// stores (MinIO, and others that honour conditional writes), through
// github.com/aws/aws-sdk-go-v2/service/s3.
//
// Open loads the standard AWS configuration (environment, shared config
// and credentials files, AWS_PROFILE, AWS_ENDPOINT_URL_S3, AWS_REGION)
// and applies Options; New wraps a client you configured yourself.
// Credentials come only from that chain: never from URLs or options, and
// the backend never logs or prints them. Location names the bucket,
// prefix and endpoint ("s3://bucket/prefix@endpoint"), without
// credentials, so that objstore caches its capability probe per bucket.
//
// Every call asks the SDK for request checksums and response checksum
// validation only where an operation requires them
// (aws.RequestChecksumCalculationWhenRequired and
// aws.ResponseChecksumValidationWhenRequired): the SDK's default sends
// CRC32 trailers that many S3-compatible stores and proxies refuse. Put
// always sends a seekable, in-memory part, which the SDK can sign and
// rewind for its retries.
//
// All keys live under the prefix given to New or Open, used as a folder
// ("tenant" and "tenant/" both put key "k" at "tenant/k"); List strips it.
//
// # Conditional writes
//
// The put modes driver.Update and driver.Create become If-Match and
// If-None-Match: * on PutObject, or on CompleteMultipartUpload for a
// multipart upload: the object appears only at completion, so that is
// where the precondition must hold. A failed completion is aborted. S3
// answers an If-Match on a missing key with 404 NoSuchKey; Put reports it
// as driver.ErrPreconditionFailed, as the driver contract says.
//
// # Large bodies
//
// A body of known size up to Options.MultipartThreshold (default: the
// part size, 16 MiB) is read into memory and sent with one PutObject. A
// larger body, or one of unknown size (-1) that turns out longer than one
// part, is streamed in a multipart upload, with two parts in memory at a
// time: the one being sent and the next one being read and hashed. Each
// part is signed with that SHA-256 as its SigV4 payload hash, also over
// HTTPS, where the SDK would otherwise send it unsigned.
// A body of unknown size can therefore be at most 10,000 parts (156 GiB
// with the default part size); for a known size the part size grows to
// fit. If anything fails after CreateMultipartUpload (the body, a part,
// the caller's context, the precondition), Put sends
// AbortMultipartUpload with a context detached from the caller's, bounded
// by one minute, so no parts are left behind. A body whose length differs
// from the declared size stores nothing.
//
// # Errors
//
// Errors match the objstore classes with errors.Is, and keep the SDK's
// error in the chain for errors.As (smithy.APIError,
// *awshttp.ResponseError):
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
// Invalid Options make Open fail, and every call of a backend made by New
// fail, with rules.ErrInvalid.
//
// # MinIO
//
// Measured on the pinned MinIO build (see DESIGN.md): PutObject and
// CompleteMultipartUpload honour If-Match and If-None-Match: * (412
// PreconditionFailed), If-Match on a missing key is 404 NoSuchKey, a
// failed conditional completion leaves the upload open (Put aborts it),
// and DeleteObject ignores If-Match (this backend never sends it). SSE
// needs a KMS on the MinIO side (MINIO_KMS_SECRET_KEY); without one,
// encrypted writes fail with 501 NotImplemented. MinIO's listing omits an
// object "a/b" while an object "a" exists (GET and HEAD still find it);
// fence's own object layout never creates such pairs.
package s3store
