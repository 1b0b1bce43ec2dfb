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
//
// Google Cloud Storage and Azure Blob Storage have no bucket policy that
// refuses an unconditional write; for them the package writes identity
// roles only:
//
//   - GCS, a custom role definition (gcloud iam roles create --file) with
//     the storage.* permissions gcsstore's requests in a role need, and
//     GCSPredefined, the predefined role that covers them;
//   - Azure, a custom role definition (az role definition create) with
//     the blob data actions azblobstore's requests in a role need, and
//     AzurePredefined, the built-in role that covers them;
//   - GCSSummary and AzureSummary, all three roles and what fence init
//     and doctor need besides, as JSON or text.
package policy
