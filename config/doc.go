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
// # Schemes of other packages
//
// A backend in a package of its own (gs://, azblob://) is not a case in
// config's switches: it is a Scheme (its URL form, its query parameters,
// a bucket-name check, an open function, and its bucket for Init and
// Doctor) registered with Register, as gocloud's
// blob registers one URLOpener per scheme. Each registration is one file,
// config/scheme_NAME.go, whose init calls Register; see "How to add a
// scheme" in scheme.go. The registration lives in config rather than in
// the backend's package so that a program that imports only the backend
// does not pull in config's dependencies (the AWS SDK, DynamoDB, minio-go),
// and so that every program that uses config knows every scheme without
// a blank import. A program's own backend can call Register from its own
// package. The built-in schemes (file, mem, s3, minio, dynamodb) keep
// their code: they parse and open exactly as before.
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
