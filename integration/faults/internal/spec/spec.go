// Package spec holds the configurations the fault suite hands its child
// processes (writers, readers and the fault proxy), as JSON files.
package spec

import (
	"encoding/json"
	"os"
	"time"
)

// Named points in a writer's commit path, where it can kill or stop
// itself.
const (
	// PointAfterVersionPut: a version object was uploaded.
	PointAfterVersionPut = "after-version-put"
	// PointBeforeManifestPut: the versions are uploaded and the manifest
	// write is about to be sent.
	PointBeforeManifestPut = "before-manifest-put"
	// PointAfterManifestPut: the manifest write succeeded; its reply has
	// not been processed yet.
	PointAfterManifestPut = "after-manifest-put"
	// PointBeforePlainPut: a plain copy (Options.PlainCopies) was
	// decided and its write is about to be sent.
	PointBeforePlainPut = "before-plain-put"
	// PointAfterPlainPut: a plain copy's write applied; its reply has not
	// been processed yet.
	PointAfterPlainPut = "after-plain-put"
)

// Backends a writer, reader or collector opens its bucket with.
const (
	// BackendS3 is objstore/s3store (aws-sdk-go-v2) at an S3 endpoint.
	BackendS3 = "s3"
	// BackendMinio is objstore/miniostore (minio-go) at an S3 endpoint.
	BackendMinio = "minio"
	// BackendGCS is objstore/gcsstore (cloud.google.com/go/storage) at a
	// GCS emulator's base URL, without credentials.
	BackendGCS = "gcs"
	// BackendAzure is objstore/azblobstore (azure-sdk-for-go's azblob)
	// at a blob service URL, with the shared key of AZURE_STORAGE_ACCOUNT
	// and AZURE_STORAGE_KEY.
	BackendAzure = "azure"
)

// Lease coordinators a writer can use.
const (
	// CoordDynamo is coord/dynamocoord on the run's table.
	CoordDynamo = "dynamodb"
	// CoordBucket is coord/bucketlease on the run's bucket.
	CoordBucket = "bucket"
)

// Deliberately broken variants (negative controls).
const (
	// BreakUnconditional drops If-Match and If-None-Match from manifest
	// writes.
	BreakUnconditional = "unconditional"
	// Break412OK reports a manifest write that failed with 412 as a
	// success.
	Break412OK = "412-ok"
	// BreakNoFloor acquires without the store's highest token as the
	// floor, so a wiped coordinator issues tokens again from 1.
	BreakNoFloor = "no-floor"
	// BreakNoClaim acquires without a fence (NoFence) through a Store
	// other than the one that commits, so that the first commit claims
	// nothing: another holder's commit at a token issued twice lands.
	BreakNoClaim = "no-claim"
	// BreakRetryFreshID "retries" a commit whose outcome is unknown by
	// committing its changes again under a fresh commit id, instead of
	// with UnknownOutcomeError.Retry: a commit that landed is applied
	// twice.
	BreakRetryFreshID = "retry-fresh-id"
	// BreakGCUnnamed is a garbage collector that deletes every version
	// object the manifest does not name, pending ones included.
	BreakGCUnnamed = "gc-unnamed"
	// BreakPlainBlind drops If-Match and If-None-Match from plain-copy
	// writes, so that a copy from an older commit can land over a newer
	// one; a writer that was resumed from a pause before a plain write
	// stops itself again right after it lands (so that a reader meets
	// the older copy before the writer's own check repairs it).
	BreakPlainBlind = "plain-blind"
	// BreakMergeDropEntry drops, from every manifest write that carries
	// more than one new commit (the store merged concurrent commits into
	// one write: group commit), the log entry of the first of them, so
	// that a commit the store acknowledges is missing from the manifest's
	// log. The writer's backend wrapper does it, re-encoding the manifest;
	// objstore is not changed.
	BreakMergeDropEntry = "merge-drop-entry"
	// BreakStagedSkipCheck makes the writer's Store publish receipts
	// unchecked (testhook.SkipReceiptCheck), in the staged
	// workload: a committer's receipts left over from an earlier lease
	// of its domain (a token since fenced, their objects perhaps
	// collected), which the store must refuse, are published by its
	// next lease's first commit.
	BreakStagedSkipCheck = "staged-skip-check"
)

// Writer configures one writer process.
type Writer struct {
	Client  string `json:"client"`
	History string `json:"history"` // file to append records to
	Backend string `json:"backend"` // see Backend* below
	// Endpoint is the store's, usually through the fault proxy: an S3
	// endpoint, fake-gcs-server's base URL, or Azure's blob service URL
	// (http://HOST:PORT/ACCOUNT).
	Endpoint string `json:"endpoint"`
	Dynamo   string `json:"dynamo"` // endpoint, usually through the fault proxy
	Bucket   string `json:"bucket"`
	Table    string `json:"table"`
	// Coord is the lease coordinator: CoordDynamo (tokens from the
	// table) or CoordBucket (lease records in the bucket, reached
	// through Endpoint).
	Coord   string   `json:"coord"`
	Domains []string `json:"domains"`
	Keys    []string `json:"keys"`
	Seed    uint64   `json:"seed"`

	TTLMillis       int64 `json:"ttl_ms"`
	OpTimeoutMillis int64 `json:"op_timeout_ms"`
	// Committers is the number of goroutines committing concurrently under
	// one lease, through the writer's one Store (1 unless testing
	// contention or group commit). Each is a client of its own in the
	// history, "<client>.g<n>", with its own operation numbers, so that
	// every client has at most one operation in flight.
	Committers int `json:"committers"`
	// CommitsMin and CommitsMax bound the commits per committer per lease.
	CommitsMin int `json:"commits_min"`
	CommitsMax int `json:"commits_max"`
	// Staged makes each commit a round of staged writes: one worker
	// goroutine per key stages its value (Store.Stage) under the lease's
	// token, and the committer publishes their receipts in one commit
	// (objstore.PutReceipt); a round does not read the domain first.
	// Each lease ends with a round staged and never committed (a job
	// that died before its commit); every other lease of the writer goes
	// back to that domain and first tries to publish those receipts,
	// which are from an older token, and the store must refuse them.
	Staged bool `json:"staged,omitempty"`
	// StubbornMillis > 0 makes the writer keep committing for that long
	// after its session ended, until it is fenced: a holder that does not
	// stop in time. Fencing must make it harmless.
	StubbornMillis int64 `json:"stubborn_ms"`

	// KillAt names a point at which the writer kills itself with SIGKILL
	// when it reaches it for the KillAfter-th time.
	KillAt    string `json:"kill_at,omitempty"`
	KillAfter int    `json:"kill_after,omitempty"`
	// PauseAt names a point at which the writer stops itself with SIGSTOP
	// once, the PauseAfter-th time; the suite resumes it.
	PauseAt    string `json:"pause_at,omitempty"`
	PauseAfter int    `json:"pause_after,omitempty"`
	// PauseClaim, when set, is a file that writers configured to pause
	// race to create: only the first to reach its pause point and create
	// it stops, so that the pause comes from whichever writer holds a
	// lease first.
	PauseClaim string `json:"pause_claim,omitempty"`

	// ClockOffsetMillis and ClockRate skew the clock the writer's
	// coordinator and session judge expiry with: offset + rate * elapsed.
	ClockOffsetMillis int64   `json:"clock_offset_ms,omitempty"`
	ClockRate         float64 `json:"clock_rate,omitempty"`

	// UnknownEvery > 0 makes every UnknownEvery-th data manifest write
	// that applied end with an unknown outcome: its reply is replaced by
	// an error, and the next two reads of that manifest are answered
	// 404 (a stale read), so that reading back fails closed and the
	// store reports ErrOutcomeUnknown. The writer then retries.
	UnknownEvery int `json:"unknown_every,omitempty"`
	// DelayBeforeManifestMillis makes every manifest write wait this long
	// after the versions were uploaded (the control of a collector that
	// deletes pending versions uses it, so that the window is wide).
	DelayBeforeManifestMillis int64 `json:"delay_before_manifest_ms,omitempty"`
	// Retries bounds how many times a commit whose outcome is unknown is
	// retried (with the error's Retry options), while it stays unknown.
	Retries int `json:"retries,omitempty"`

	// InlineMax and InlineBudget are the store's objstore.Options of the
	// same names: 0 is the default (small values inline), InlineMax -1
	// makes every value a version object of its own.
	InlineMax    int64 `json:"inline_max,omitempty"`
	InlineBudget int64 `json:"inline_budget,omitempty"`

	// PlainCopies makes every commit also write its keys' plain copies
	// (objstore.Options.PlainCopies). A commit that landed but whose
	// plain copies failed (objstore.ErrPlainCopy) counts as landed.
	PlainCopies bool `json:"plain_copies,omitempty"`

	// NoFence is the share of acquisitions (0 to 1, drawn from the seed)
	// made with fence.AcquireOptions.NoFence: no takeover fence, the
	// holder's first commit raises the domain to its token and claims it.
	NoFence float64 `json:"no_fence,omitempty"`
	// NoFenceWaitMillis is how long a holder that acquired without a
	// fence waits before its first commit, as a job that works before
	// it writes: the window in which a wiped coordinator can issue its
	// token again.
	NoFenceWaitMillis int64 `json:"no_fence_wait_ms,omitempty"`

	// Break selects a deliberately broken variant (negative control).
	Break string `json:"break,omitempty"`
}

// TTL returns the lease duration.
func (w Writer) TTL() time.Duration { return time.Duration(w.TTLMillis) * time.Millisecond }

// Reader configures one reader process; each client is a goroutine.
type Reader struct {
	Clients  []string `json:"clients"`
	History  string   `json:"history"`
	Backend  string   `json:"backend"`
	Endpoint string   `json:"endpoint"`
	Bucket   string   `json:"bucket"`
	Domains  []string `json:"domains"`
	Seed     uint64   `json:"seed"`
	// PauseMillis is the pause between two reads of one client.
	PauseMillis     int64 `json:"pause_ms"`
	OpTimeoutMillis int64 `json:"op_timeout_ms"`
	// Plain makes each client also read the plain copy of one of Keys
	// after each snapshot read, with a plain GET, as a client that does
	// not speak fence would.
	Plain bool     `json:"plain,omitempty"`
	Keys  []string `json:"keys,omitempty"`
}

// GC configures the garbage collector process: one client that runs
// Store.Collect with a grace of 0 over every domain, again and again.
type GC struct {
	Client   string   `json:"client"`
	History  string   `json:"history"`
	Backend  string   `json:"backend"`
	Endpoint string   `json:"endpoint"`
	Bucket   string   `json:"bucket"`
	Domains  []string `json:"domains"`
	Seed     uint64   `json:"seed"`
	// PauseMillis is the pause between two passes over the domains.
	PauseMillis     int64 `json:"pause_ms"`
	OpTimeoutMillis int64 `json:"op_timeout_ms"`
	// Break selects a deliberately broken collector (BreakGCUnnamed).
	Break string `json:"break,omitempty"`
}

// GC result counters, recorded in the Stats of each gc operation.
const (
	GCScanned = "scanned"
	GCLive    = "live"
	GCDeleted = "deleted"
	GCPending = "pending"
	GCKept    = "kept"
)

// Route is one connection the fault proxy carries: a toxiproxy proxy to
// Upstream (host:port), with an HTTP fault layer in front when HTTP is
// set.
type Route struct {
	Name     string `json:"name"`
	Upstream string `json:"upstream"`
	HTTP     bool   `json:"http"`
	// UpstreamHost makes the route's HTTP layer send Upstream as the
	// requests' Host header instead of the client's. fake-gcs-server
	// needs it: it serves path-style reads (/BUCKET/OBJECT, which the
	// GCS SDK sends for every read) only to requests whose Host is its
	// own, and answers 404 to the others. Only for requests whose
	// signature does not cover Host (never S3's).
	UpstreamHost bool `json:"upstream_host,omitempty"`
	// Record makes the route's HTTP layer log to Proxy.Record every
	// write of a manifest or version object and every delete of a
	// version object, with the server's answer (see WireWrite). Only
	// for Azure's blob API (path-style URLs, /ACCOUNT/CONTAINER/KEY).
	Record bool `json:"record,omitempty"`
}

// Proxy configures the fault proxy process.
type Proxy struct {
	Routes []Route `json:"routes"`
	Seed   uint64  `json:"seed"`
	// Record is the file the routes with Record append WireWrite lines
	// to.
	Record string `json:"record,omitempty"`
}

// WireWrite is one line of the wire record (Proxy.Record): a write the
// HTTP layer forwarded and the answer the server gave it. It stands in
// for a versioned bucket on a store that keeps no versions (Azurite):
// the layer sends a domain's manifest writes and version deletes to the
// server one at a time, and stamps each with At once its answer came, so
// that their order by At is the order the server applied them.
type WireWrite struct {
	// At is hist.Now() when the server's answer came (or when the layer
	// gave up waiting for it).
	At     int64  `json:"at"`
	Route  string `json:"route"`
	Method string `json:"method"` // PUT or DELETE
	// Path is the URL path, unescaped: /ACCOUNT/CONTAINER/KEY.
	Path string `json:"path"`
	// Comp is the request's comp query parameter: "" for Put Blob,
	// "blocklist" for Put Block List.
	Comp string `json:"comp,omitempty"`
	// Status is the server's answer; 0 when none came (Err says why).
	Status int    `json:"status"`
	Err    string `json:"err,omitempty"`
	// ETag is the answer's ETag header.
	ETag        string `json:"etag,omitempty"`
	IfMatch     string `json:"if_match,omitempty"`
	IfNoneMatch string `json:"if_none_match,omitempty"`
	// Body is a manifest write's body.
	Body []byte `json:"body,omitempty"`
}

// ProxyReady is what the fault proxy prints on its first line of output.
type ProxyReady struct {
	API    string            `json:"api"`    // toxiproxy's HTTP API, host:port
	Listen map[string]string `json:"listen"` // route -> host:port to connect to
	HTTP   map[string]string `json:"http"`   // route -> host:port of its HTTP fault layer
}

// HTTPFaults configures the HTTP fault layer of a route. Rates are
// probabilities per request, applied in this order.
type HTTPFaults struct {
	// Refuse503 answers 503 SlowDown without forwarding the request.
	Refuse503 float64 `json:"refuse_503"`
	// Refuse500 answers 500 InternalError without forwarding.
	Refuse500 float64 `json:"refuse_500"`
	// Applied503 forwards a PUT, lets it apply, and replaces its reply
	// with 503 SlowDown.
	Applied503 float64 `json:"applied_503"`
	// Forget lists object keys (without the bucket) that the route
	// forgets, as an erasure-coded MinIO whose drives came back stale
	// does for an object it holds on no majority: GET and HEAD answer
	// 404 NoSuchKey, a PUT with If-Match answers 404 without applying,
	// and a PUT with If-None-Match: * succeeds and overwrites the object.
	Forget []string `json:"forget,omitempty"`
}

// HTTPStats counts what the HTTP fault layer did.
type HTTPStats struct {
	Requests   int64 `json:"requests"`
	Refused503 int64 `json:"refused_503"`
	Refused500 int64 `json:"refused_500"`
	Applied503 int64 `json:"applied_503"`
	// The forgetful layer: reads answered 404, If-Match writes answered
	// 404, and If-None-Match writes let through over the object.
	ForgotReads   int64 `json:"forgot_reads"`
	ForgotIfMatch int64 `json:"forgot_if_match"`
	Overwrote     int64 `json:"overwrote"`
}

// Load reads a configuration file into v.
func Load(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// Save writes v to path as JSON.
func Save(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
