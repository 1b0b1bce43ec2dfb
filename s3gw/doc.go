// Package s3gw is an S3 endpoint whose writes are one job's fenced
// output: a job that writes with any S3 client (aws cli, boto3, rclone,
// the JS or Go SDKs) writes through it to one fence domain under one
// token, and nothing it writes is visible to anyone else until one
// commit publishes all of it, a commit the store refuses once a newer
// token has fenced the domain. fence exec --s3 serves it to its command
// on loopback; a Go program can serve it around its own work:
//
//	gw, err := s3gw.New(s3gw.Options{Store: store, Domain: "reports/daily", Token: lease.Token,
//		Bucket: "reports", Credentials: wire.StaticCredentials{access: secret}})
//	ep, err := s3gw.Serve(gw, s3gw.ServeOptions{})
//	... the work, with an S3 client of ep.URL ...
//	changes, _, err := gw.Changes(ctx, store, "reports/daily")
//	_, err = store.Commit(ctx, "reports/daily", lease.Token, changes, nil)
//	gw.Close(ctx, err == nil)
//	ep.Shutdown(ctx)
//
// # Keys
//
// The gateway answers for one bucket (Options.Bucket). S3 key
// KeyPrefix+K is the domain's key K, where KeyPrefix is the domain
// followed by "/" (after the store's own prefix, if its URL has one):
// the names a job uses without the gateway, and the names plain copies
// give readers. Any other key, and any other bucket, is AccessDenied,
// and nothing is written for it. Listings show the domain's keys only.
//
// # Writes
//
// PutObject, CopyObject, the multipart family (Create, UploadPart,
// UploadPartCopy, Complete, Abort, ListParts, ListMultipartUploads),
// DeleteObject and DeleteObjects. A body streams to its staged version
// object as it arrives (objstore.Store.Stage, and Store.StageParts for a
// multipart upload), through package wire, which decodes every payload
// mode and checks every signature and checksum: a body that fails a
// check is refused (BadDigest, SignatureDoesNotMatch, ...) and nothing of
// it is staged. A value no larger than the store's InlineMax, which the
// commit keeps in the manifest itself, is held in memory instead (within
// Options.HoldBytes) and sent to the store only by that commit: a small
// put is one loopback request. With CommitAtEnd (the default) the job's
// writes and deletes wait in the gateway as receipts, held values and
// tombstones; Changes turns them into one commit. With CommitEach every
// completed write is its own commit at once.
//
// # Reads
//
// GetObject (whole, one byte range, with If-Match, If-None-Match,
// If-Modified-Since and If-Unmodified-Since), HeadObject, ListObjectsV2
// and ListObjects see the domain's committed state overlaid with the
// job's own staged writes and deletes, so tools that look before they
// write (aws s3 sync, rclone) work. Every read is checked as fence
// checks reads: a whole value by its checksums, a range by its length.
//
// # What S3 keeps and fence does not
//
// fence's manifest records a value's size, SHA-256 and CRCs, not its
// MD5, content type or user metadata. The gateway returns them as the
// client set them for what it wrote itself in this run (ETags are the MD5
// of a put and the MD5 of the part MD5s of a multipart upload, as S3
// makes them; a part's MD5 is the store's ETag of it once the store's
// ETags have been seen to be MD5s, see partetag.go). For a value committed before, the ETag is made from its
// SHA-256 in the form of a multipart ETag ("...-1"), which clients do not
// compare with an MD5, and the content type is binary/octet-stream.
//
// # Lost leases
//
// LeaseLost (fence exec calls it when it sees the lease lost), or a stage
// the store refuses because a newer token fenced the domain, makes every
// later write fail with FenceLeaseLost (403), whose message says so.
// Safety does not depend on it: the store refuses a stale token's commit
// whatever the gateway does.
//
// # Security
//
// Serve listens on loopback only. Every request must be signed (SigV4,
// in a header or a presigned URL) with Options.Credentials, which fence
// exec makes at random for each run and never logs. Headers are bounded
// (64 KiB), XML bodies too (4 MiB), and a single body to S3's 5 GiB.
// Close aborts the multipart uploads left open and discards the staged
// values of a job that did not publish; what a killed process leaves, gc
// deletes once a newer token passes it (and incomplete multipart uploads
// in an S3 bucket, a lifecycle rule's AbortIncompleteMultipartUpload).
package s3gw
