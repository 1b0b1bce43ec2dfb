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
// second from as many workers; aggregate commits per second from 8 and 64
// goroutines of one Store into one domain (a key each, group commit)
// against plain PUTs from as many goroutines; commit latency in domains of 10, 1,000
// and 10,000 live keys; a batch job's whole cycle (fence.Acquire, one
// put of 1 KiB, Release), by default and with AcquireOptions.NoFence,
// against the cycle a user writes without fence (a conditional write
// takes a lock, one plain put, a conditional write frees it); a whole
// `fence put` process of 1 KiB, with the probe's verdict cached across
// processes and with FENCE_PROBE_CACHE=off, against a process that makes
// one plain put; the peak resident memory of a 1 GiB put and get; and,
// on an S3 store (s3://, minio://), an aws-sdk-go-v2 PutObject of 1 KiB
// and a 256 MiB multipart upload through the S3 gateway (package s3gw,
// as fence exec --s3 serves it) against the same client straight to the
// store's S3 endpoint, the gateway's peak resident memory against its
// bound (its resident memory once serving, plus its part buffers, plus
// an allowance per concurrent part), and the one commit that publishes
// what it staged. Config changes every size, count and duration.
//
// Each latency row reports p50, p90 and p99, operations per second, the
// ratio of the fenced p50 to the plain p50, and the row's floor (below)
// with the ratio of the fenced p50 to the floor's. Rows whose ID matches
// one of the targets of the performance issue also say whether it is
// met, and every row with a floor whether it is within 1.2x of it. The
// targets are informational: Run never fails because of them.
//
// # Floors
//
// A row's floor is the bare calls the protocol cannot avoid for its
// fenced operation (docs/design.md, "A commit, step by step"; fence.go's
// acquire), made through the plain side's SDK client on the same server
// as a side of the same interleaved run: measured, never computed. A
// floor's manifest write is one conditional PUT (If-Match, as fence's)
// of the domain's manifest as it is at that moment, its bytes re-read
// untimed before each call, to a scratch key beside it. The floors:
//
//   - put at or below the inline limit (objstore.Options.InlineMax,
//     4 KiB): one conditional manifest write;
//   - put above it: the version's upload (a PutObject with
//     If-None-Match: * to a new key), then one conditional manifest
//     write;
//   - commit of N keys: one conditional manifest write when the values
//     are inline (N x size within objstore.Options.InlineBudget), else N
//     version uploads at the store's upload parallelism, then the
//     manifest write;
//   - one-key commit in a domain of N live keys: as a put, with that
//     domain's root manifest;
//   - get on a warm Store: one GET of the object (the plain side's call:
//     the manifest's revalidation names the same immutable version the
//     cache holds, so it can overlap that GET);
//   - get through a new Store: one GET of the manifest, then, unless the
//     value is inline, one GET of an object of the same size;
//   - lease acquire: one bare conditional write to the coordinator (the
//     plain side's call); acquire + release: two, one after the other;
//   - takeover (fence.Acquire): one GET of the manifest (the store's
//     highest token) beside one bare conditional write to the
//     coordinator (with bucket leases, a conditional PUT of a lease-sized
//     object), then one conditional manifest write (the fence);
//   - job: the takeover's floor, then one more conditional manifest write
//     (the put), then one bare conditional write to the coordinator (the
//     release); with NoFence, the manifest's GET beside the acquisition,
//     then the put's manifest write (which claims the token), then the
//     release;
//   - `fence put` process: a process of the same binary that makes one
//     GET of the manifest (a new process has no cached ETag) and one
//     conditional PUT of as many bytes;
//   - commit publishing N staged receipts: one HEAD of each receipt's
//     version object at the store's upload parallelism (the commit's
//     checks), then one conditional manifest write; this floor is also
//     the row's plain side.
//
// Throughput (domains, writers) and memory rows have no floor.
//
// # Client cost
//
// Every interleaved row also reports, per operation and side, the
// client's CPU time (user and system, getrusage of the whole process
// around each call) and heap allocations (bytes and objects,
// runtime.ReadMemStats around each call, outside the timed interval; it
// flushes the allocation caches, so an allocation counts on the side
// that made it). They include the work of the process's other goroutines
// meanwhile: the HTTP transport's, a session's renewals, the garbage
// collector's. The process rows report the child's own CPU time
// (os.ProcessState) and no allocations. The gateway's multipart row
// also reports, on Linux, the CPU per operation of the other processes
// on each path (Stats.GatewayCPU, Stats.StoreCPU): the gateway child's,
// and the store server's when it listens on this machine's loopback
// (found through /proc/net/tcp), read from /proc/PID/stat around each
// call, so that the report can add up what one upload costs the machine
// each way.
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
// The gateway rows' client is not the backend's: it is one
// aws-sdk-go-v2 configuration with the SDK's defaults (as a job's client
// has them), made for the gateway and for the store's S3 endpoint, the
// latter with the backend's credentials (its *s3.Client's provider, or
// its *minio.Client's) and region, both on one HTTP client.
//
// # Child processes
//
// The memory rows, and the gateway case's gateway, run in child
// processes, so that nothing else the run holds counts: Run starts its
// own executable with the environment variable FENCE_BENCH_CHILD set,
// and this package's init function serves that request and exits
// before main runs. Any binary that links
// this package, the fence CLI and test binaries alike, therefore works
// without wiring. The process rows start Config.CLI, a fence binary, for
// their fenced side (`fence --store StoreURL [--coord CoordURL] put
// DOMAIN obj FILE --token N`, the lease held by Run meanwhile) and as the
// child of their plain and floor sides, each with the environment
// without FENCE_ variables and with an XDG_CACHE_HOME of its own, so
// that the probe's verdict cache starts empty. The child reopens the backend from its location (s3,
// minio, gs and azblob endpoints, bucket or container and prefix; a
// filestore's directory) with default options and the credentials of
// the environment, streams the body from a generator and reports VmHWM
// from /proc/self/status. A memstore cannot be reopened, so its memory
// rows are skipped. The gateway child serves until its standard input
// ends, then commits what it staged and reports its peak memory.
//
// # Scratch data
//
// Everything is written under "<Prefix>/<random>/" (default prefix
// "fence-bench") and deleted at the end, also after an error or a
// cancelled context, together with unfinished multipart uploads and the
// scratch DynamoDB items.
package bench
