// Package policy writes the AWS policies that go with a fenced store:
//
//   - Bucket, a bucket policy under which S3 itself refuses an
//     unconditional write to fence's objects (manifests, lease records,
//     versions, shards, floor markers, probe objects), through the
//     s3:if-match and s3:if-none-match condition keys, so that not even
//     a buggy or foreign client can overwrite a manifest blindly;
//   - IAM, least-privilege identity policies for a writer, a reader and
//     the collector (fence gc), with exactly the actions fence's code
//     calls, none of them a wildcard.
//
// Check and Merge compare a bucket's current policy with fence's and add
// fence's statements to it, keeping the others. The fence policy command
// prints, applies and checks them.
package policy
