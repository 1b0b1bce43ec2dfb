// Package azblobstore is a driver.Backend on Azure Blob Storage (and its
// emulator, Azurite), through
// github.com/Azure/azure-sdk-for-go/sdk/storage/azblob. Objects are
// block blobs in one container, under a key prefix used as a folder.
//
// Open takes credentials from the environment only, never from URLs or
// options: AZURE_STORAGE_CONNECTION_STRING; else AZURE_STORAGE_ACCOUNT
// and AZURE_STORAGE_KEY (a shared key); else azidentity's
// DefaultAzureCredential (environment service principal, workload
// identity, managed identity, Azure CLI). Location names the container,
// prefix and endpoint ("azblob://container/prefix@https://acct.blob.core.windows.net"),
// without credentials, so that objstore caches its capability probe per
// container.
//
// # Conditional writes
//
// The put modes become Azure's conditional headers: driver.Create is
// If-None-Match: *, driver.Update is If-Match: ETAG, driver.Overwrite
// sends neither. A body of known size up to Options.MultipartThreshold
// (default the block size, 16 MiB), or of unknown size that fits in one
// block, goes with one Put Blob carrying the condition. A larger body is
// staged with Put Block, two blocks in memory at a time, and committed
// with Put Block List, which carries the condition: the blob appears
// only then, so that is where the condition must hold (OpenDAL once sent
// it on the staged blocks only). PutMultipart always stages, so that the
// capability probe proves the store checks the condition on Put Block
// List too.
//
// A body held in memory (a *bytes.Reader, a *strings.Reader, objstore's
// manifest writes) goes as it is, without a copy. The Backend is a
// driver.HashingPutter: PutHashed computes the body's digest as Put
// reads it, so objstore hands it the caller's body unwrapped
// (TestInMemoryBodyNotCopied, TestPutHashed).
//
// Block IDs carry a random upload id, because Azure keeps one list of
// uncommitted blocks per blob, shared by every upload to it. Azure has
// no call to discard staged blocks: those of a failed upload are
// invisible, and the service drops them at the blob's next commit or
// after seven days.
//
// # Metadata
//
// Azure metadata names are C# identifiers, so a '-' in a fence metadata
// name is stored as '_' (fence-seq as fence_seq) and read back as '-';
// fence's names never hold '_', so the mapping is reversible. A name
// that starts with a digit cannot be stored and fails the Put with
// driver.ErrPermanent.
//
// # Errors
//
// Errors match the objstore classes with errors.Is, and keep the SDK's
// *azcore.ResponseError in the chain for errors.As (see Class):
//
//   - 412 ConditionNotMet, 409 BlobAlreadyExists:
//     driver.ErrPreconditionFailed
//   - 404 BlobNotFound: driver.ErrNotFound; for a Put in Update mode,
//     driver.ErrPreconditionFailed (Azure answers If-Match on a missing
//     blob with 404, Azurite with 412: both are a failed precondition)
//   - 404 ContainerNotFound: driver.ErrNoBucket, a
//     *driver.NoBucketError naming the container and the endpoint
//   - 403 (AuthenticationFailed, a role without the data action):
//     driver.ErrPermission, naming the credential variables
//   - 429 and 503 ServerBusy: no class once the SDK's own retries are
//     spent, so the Store treats a write as ambiguous, never as a failed
//     precondition
//   - no answer (a closed port, a wrong host): an error naming the
//     endpoint it could not reach; connection refused, an unknown host
//     and an http/https mismatch are driver.ErrUnreachable, which
//     neither the SDK nor the Store retries
package azblobstore
