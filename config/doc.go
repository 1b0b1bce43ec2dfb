// Package config turns the URLs that the fence CLI and its users pass
// (--store, --coord, FENCE_STORE, FENCE_COORD) into an object-store
// backend and a lease coordinator, and creates (Init) and checks (Doctor)
// what they need.
//
// Store URLs:
//
//	file://PATH   a local directory, the embedded default. PATH is taken
//	              literally: file://./fence-data is relative to the working
//	              directory, file:///var/lib/fence is absolute.
//	mem://[NAME]  process-local memory, for tests. mem:// is a new empty
//	              store on every open; mem://NAME is shared by every open
//	              of the same NAME in one process.
//	s3://BUCKET[/PREFIX][?endpoint=URL&region=R&path_style=true&sse=S&kms_key_id=K]
//	              an S3 bucket through aws-sdk-go-v2 (objstore/s3store):
//	              AWS S3, or any S3-compatible endpoint.
//	minio://BUCKET[/PREFIX]?endpoint=URL[&region=R&sse=S&kms_key_id=K]
//	              a bucket through minio-go (objstore/miniostore). An
//	              https:// endpoint uses TLS.
//	azblob://CONTAINER[/PREFIX][?endpoint=URL&account=NAME]
//	              an Azure Blob Storage container (objstore/azblobstore);
//	              endpoint may end in the account
//	              (http://127.0.0.1:10000/devstoreaccount1 for Azurite).
//	              Credentials from AZURE_STORAGE_CONNECTION_STRING,
//	              AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, or
//	              DefaultAzureCredential; never from the URL.
//
// Coordinator URLs:
//
//	""            (empty) lease records kept in the store itself, as
//	              objects beside each domain's manifest (bucket leases).
//	dynamodb://TABLE[?endpoint=URL&region=R]
//	              leases and tokens from a DynamoDB table
//	              (coord/dynamocoord), created by Init.
//	any store URL bucket leases kept in that store.
//
// Query parameters: endpoint is http(s)://HOST[:PORT]; empty means the
// AWS configuration decides (AWS_ENDPOINT_URL_S3,
// AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL, the shared config file).
// region overrides AWS_REGION and the profile's region. path_style=true
// addresses the bucket as ENDPOINT/BUCKET, as most S3-compatible stores
// need. sse is AES256 (SSE-S3) or aws:kms (SSE-KMS, with an optional
// kms_key_id). Unknown, repeated and empty parameters are errors that
// name them.
//
// # Backends are linked by import
//
// config parses every URL form above, but opens only the schemes whose
// package the program imports: each backend registers its scheme from an
// init function (its register.go), as gocloud's blob registers one
// URLOpener per scheme, so a program that opens only mem:// links none of
// the cloud SDKs. file:// and mem:// are built in (objstore/filestore and
// objstore/memstore need only the standard library and packages config
// links anyway). The others need a blank import:
//
//	import (
//		_ "github.com/fencedstore/fence/objstore/s3store"     // s3://
//		_ "github.com/fencedstore/fence/objstore/miniostore"  // minio://
//		_ "github.com/fencedstore/fence/objstore/gcsstore"    // gs://
//		_ "github.com/fencedstore/fence/objstore/azblobstore" // azblob://
//		_ "github.com/fencedstore/fence/coord/dynamocoord"    // dynamodb://
//	)
//
// A URL whose backend the program does not link is refused (ErrBadURL)
// with the import line to add. The fence command imports them all
// (cmd/fence/backends.go).
//
// The registry is package config/registry, which the backends import
// instead of config: a program that imports only a backend does not link
// config, and config's own tests can import every backend. A program's
// own backend registers a Scheme (its URL form, its query parameters, a
// bucket-name check, an open function, and its bucket for Init and
// Doctor) with Register or registry.Register; see "How to add a scheme"
// in scheme.go.
//
// # Credentials
//
// Credentials come only from the environment: for azblob://, as above;
// for gs://, Application Default Credentials; otherwise the standard AWS
// chain. s3:// and dynamodb:// use the SDK's: environment (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), AWS_PROFILE with the shared
// config and credentials files, web identity, instance and task roles.
// minio:// reads AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and
// AWS_SESSION_TOKEN), then MINIO_ROOT_USER and MINIO_ROOT_PASSWORD, then
// the shared credentials file (AWS_PROFILE). ParseURL refuses a URL that
// carries them, as user:password, in the endpoint, or in a
// credential-looking query parameter (secret, key, token, password, ...),
// and its errors never repeat them. Every message names URLs through
// Redact.
package config
