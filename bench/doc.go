// Package bench measures what fencing costs: each fenced operation of a
// Store side by side with the plain operation it wraps, on the same
// bucket, with the same SDK client, interleaved in one run. It is the
// library behind `fence bench`; the CLI only parses flags and calls Run.
//
//	rep, err := bench.Run(ctx, bench.Config{Backend: backend, Coordinator: c}, os.Stderr)
//	fmt.Print(rep.Table()) // or json.Marshal(rep)
//
// # Cases
//
// put (1 KiB, 1 MiB, 64 MiB) against one plain PutObject; an atomic
// commit of 100 keys of 1 KiB against 100 plain PUTs at the store's
// upload parallelism; get (1 KiB, 64 MiB) against one plain GetObject,
// plus a cold read through a new Store; lease acquisition, acquisition
// plus release and the full takeover (fence.Acquire) against one bare
// conditional write to the coordinator's storage (an UpdateItem for
// DynamoDB, an If-Match PutObject for bucket leases); aggregate commits
// per second over 1, 8 and 64 concurrent domains against plain PUTs per
// second from as many workers; commit latency in domains of 10, 1,000
// and 10,000 live keys; and the peak resident memory of a 1 GiB put and
// get. Config changes every size, count and duration.
//
// Each latency row reports p50, p90 and p99, operations per second and
// the ratio of the fenced p50 to the plain p50. Rows whose ID matches
// one of the targets of the performance issue also say whether it is
// met. The targets are informational: Run never fails because of them.
//
// # Baselines
//
// For an *s3store.Backend the plain calls go through its own *s3.Client
// (aws-sdk-go-v2), for a *miniostore.Backend through its own
// *minio.Client, for a *gcsstore.Backend through its own *storage.Client
// (cloud.google.com/go/storage: one Writer with the backend's chunk size,
// one Reader; conditions are ifGenerationMatch), and for an
// *azblobstore.Backend through its own *container.Client (one Put Blob,
// one Get Blob; conditions are If-None-Match: * and If-Match), to the
// same bucket or container and key prefix. Other backends (memstore,
// filestore) are compared with their own unconditional Put and Get.
//
// # Memory
//
// The memory rows run in child processes, so that nothing else the run
// holds counts: Run starts its own executable with the environment
// variable FENCE_BENCH_MEMORY_CHILD set, and this package's init function
// serves that request and exits before main runs. Any binary that links
// this package, the fence CLI and test binaries alike, therefore works
// without wiring. The child reopens the backend from its location (s3,
// minio, gs and azblob endpoints, bucket or container and prefix; a
// filestore's directory) with default options and the credentials of
// the environment, streams the body from a generator and reports VmHWM
// from /proc/self/status. A memstore cannot be reopened, so its memory
// rows are skipped.
//
// # Scratch data
//
// Everything is written under "<Prefix>/<random>/" (default prefix
// "fence-bench") and deleted at the end, also after an error or a
// cancelled context, together with unfinished multipart uploads and the
// scratch DynamoDB items.
package bench
