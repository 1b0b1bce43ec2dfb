package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
)

// Case names a group of measurements. Config.Cases selects which run.
type Case string

// The cases, in the order Run measures them.
const (
	// CasePut: one-key put of each of Config.PutSizes against a plain
	// PutObject of the same bytes.
	CasePut Case = "put"
	// CaseCommit: an atomic commit of Config.CommitKeys keys against as
	// many plain PUTs at the store's upload parallelism.
	CaseCommit Case = "commit"
	// CaseGet: a read of each of Config.GetSizes against a plain
	// GetObject.
	CaseGet Case = "get"
	// CaseLease: lease acquisition (and release, and the full takeover)
	// against one bare conditional write to the coordinator.
	CaseLease Case = "lease"
	// CaseDomains: aggregate commits per second over each of
	// Config.Domains concurrent domains against plain PUTs per second
	// from as many workers.
	CaseDomains Case = "domains"
	// CaseWriters: aggregate commits per second from each of
	// Config.Writers goroutines of one Store into one domain against
	// plain PUTs per second from as many goroutines.
	CaseWriters Case = "writers"
	// CaseLiveKeys: commit latency in domains holding each of
	// Config.LiveKeys live keys.
	CaseLiveKeys Case = "livekeys"
	// CaseJob: a batch job's whole cycle (fence.Acquire, one put of
	// Config.CommitKeySize bytes, Release), by default and with
	// AcquireOptions.NoFence, against a plain lock, put and unlock.
	CaseJob Case = "job"
	// CaseProcess: a whole `fence put` process of Config.CommitKeySize
	// bytes (Config.CLI), with the probe's verdict cached and without,
	// against a process that makes one plain put.
	CaseProcess Case = "process"
	// CaseMemory: peak resident memory of a put and a get of
	// Config.MemorySize bytes, each in a child process.
	CaseMemory Case = "memory"
	// CaseReceipts: a commit publishing Config.Receipts staged receipts
	// against its floor (a HEAD of each at the store's upload
	// parallelism, one conditional manifest write), and the time and
	// peak resident memory of a commit of Config.LargeReceipts, in a
	// child process.
	CaseReceipts Case = "receipts"
	// CaseGateway: an aws-sdk-go-v2 PutObject of 1 KiB and a multipart
	// upload of Config.GatewayMultipartSize through an S3 gateway
	// (package s3gw) in a child process, against the same client straight
	// to the store's S3 endpoint; the gateway's peak resident memory
	// against its bound; and the one commit that publishes what it
	// staged. S3 stores (s3://, minio://) only.
	CaseGateway Case = "gateway"
)

// AllCases lists every case in the order Run measures them.
var AllCases = []Case{CasePut, CaseCommit, CaseGet, CaseLease, CaseDomains, CaseWriters, CaseLiveKeys, CaseJob, CaseProcess, CaseMemory, CaseReceipts, CaseGateway}

// ParseCases parses a comma-separated list of case names, as a CLI flag
// gives it. "" and "all" mean every case.
func ParseCases(s string) ([]Case, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return slices.Clone(AllCases), nil
	}
	var out []Case
	for name := range strings.SplitSeq(s, ",") {
		c := Case(strings.TrimSpace(name))
		if !slices.Contains(AllCases, c) {
			return nil, fmt.Errorf("bench: unknown case %q; the cases are %s", name, caseList())
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

func caseList() string {
	names := make([]string, len(AllCases))
	for i, c := range AllCases {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// Size units.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
)

// Config says what Run measures and where. Backend is required; every
// other zero field takes the default given in its comment. The defaults
// finish in a few minutes against a local MinIO.
type Config struct {
	// Backend is the store to measure, already opened. Plain baselines
	// use the same SDK client when it is an *s3store.Backend, a
	// *miniostore.Backend, a *gcsstore.Backend or an *azblobstore.Backend,
	// and the backend's own unconditional Put and Get otherwise. Run does
	// not close it.
	Backend driver.Backend
	// Coordinator is the lease coordinator to measure. Default: bucket
	// leases kept in Backend, as when no coordinator URL is given.
	Coordinator *coord.Coordinator
	// DynamoDB is the client the bare UpdateItem baseline uses when
	// Coordinator's driver is a *dynamocoord.Driver (dynamocoord.NewClient
	// with the coordinator's endpoint and region). Without it the lease
	// rows have no baseline, and the scratch lease item stays in the
	// table.
	DynamoDB *dynamodb.Client
	// StoreOptions configures the fenced Store. nil means defaults; its
	// UploadParallelism is also the parallelism of the plain PUTs that a
	// multi-key commit is compared with.
	StoreOptions *objstore.Options

	// Cases selects the cases to run. Default AllCases.
	Cases []Case
	// Prefix is where scratch objects go: every run writes under
	// "<Prefix>/<random>/" and deletes it at the end. Default
	// "fence-bench".
	Prefix string

	// Iterations is the number of timed iterations of each side of a
	// latency row, after one untimed warm-up. Default 100. Rows of large
	// objects run fewer: see ByteBudget.
	Iterations int
	// ByteBudget caps the bytes one side of a row moves: a row of
	// size-byte objects runs min(Iterations, max(5, ByteBudget/size))
	// iterations. Default 1 GiB (16 iterations of 64 MiB).
	ByteBudget int64
	// PutSizes are the object sizes of the put rows. Default 1 KiB,
	// 1 MiB, 64 MiB.
	PutSizes []int64
	// GetSizes are the object sizes of the get rows. Default 1 KiB,
	// 64 MiB.
	GetSizes []int64
	// CommitKeys is the number of keys of the multi-key commit. Default
	// 100.
	CommitKeys int
	// CommitKeySize is the size of each of its keys, and of the value
	// written by the domains, live-keys, job and process rows. Default
	// 1 KiB.
	CommitKeySize int64
	// CommitIterations is the number of timed iterations of the
	// multi-key commit and live-keys rows. Default 30.
	CommitIterations int
	// Domains are the numbers of concurrent domains of the throughput
	// rows. Default 1, 8, 64.
	Domains []int
	// Writers are the numbers of goroutines of the one-domain throughput
	// rows. Default 8, 64.
	Writers []int
	// ThroughputTime is how long each throughput phase runs. Default 2s.
	ThroughputTime time.Duration
	// ThroughputRounds is the number of fenced and plain phases, taken
	// alternately, of each throughput row. Default 2.
	ThroughputRounds int
	// LiveKeys are the live-key counts of the live-keys rows; the
	// smallest is the reference the others are compared with. Default
	// 10, 1,000, 10,000.
	LiveKeys []int
	// MemorySize is the object size of the memory rows. Default 1 GiB.
	MemorySize int64
	// MemoryTimeout bounds each memory child process. Default 10 minutes.
	MemoryTimeout time.Duration

	// CLI is the path of a fence binary, for the process rows: they run
	// its `fence put`, and their plain and floor sides are child
	// processes of the same binary (every binary that links this package
	// serves them). Default: none, and the process rows are skipped; the
	// fence CLI passes its own executable.
	CLI string
	// StoreURL and CoordURL are the --store and --coord the fence
	// processes of the process rows get: the URLs Backend and
	// Coordinator were opened from. CoordURL "" passes no --coord (bucket
	// leases in the store).
	StoreURL, CoordURL string
	// ProcessIterations is the number of timed iterations of each side
	// of the process rows. Default 20.
	ProcessIterations int

	// Receipts is the number of staged receipts (of CommitKeySize bytes
	// each) the receipts row's commit publishes. Default 1,000.
	Receipts int
	// ReceiptIterations is the number of timed iterations of the
	// receipts row; each stages Receipts new values first, untimed.
	// Default 10.
	ReceiptIterations int
	// LargeReceipts is the number of receipts of the receipts case's
	// memory row, committed once in a child process. Default 10,000.
	LargeReceipts int

	// GatewayMultipartSize is the size of the gateway case's multipart
	// upload. Default 256 MiB.
	GatewayMultipartSize int64
	// GatewayPartSize is the size of its parts (the last may be
	// shorter). Default 16 MiB; S3 wants at least 5 MiB for every part
	// but the last.
	GatewayPartSize int64
	// GatewayPartConcurrency is how many of its parts are uploaded at
	// once, started in order of part number as an upload manager starts
	// them. Default 4.
	GatewayPartConcurrency int
}

// Defaults returns a Config with every field but the clients and
// StoreOptions set to its default, for a CLI to show in its help.
func Defaults() Config { return Config{}.withDefaults() }

// withDefaults returns c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if len(c.Cases) == 0 {
		c.Cases = slices.Clone(AllCases)
	}
	if c.Prefix == "" {
		c.Prefix = "fence-bench"
	}
	c.Prefix = strings.Trim(c.Prefix, "/")
	if c.Iterations <= 0 {
		c.Iterations = 100
	}
	if c.ByteBudget <= 0 {
		c.ByteBudget = GiB
	}
	if len(c.PutSizes) == 0 {
		c.PutSizes = []int64{KiB, MiB, 64 * MiB}
	}
	if len(c.GetSizes) == 0 {
		c.GetSizes = []int64{KiB, 64 * MiB}
	}
	if c.CommitKeys <= 0 {
		c.CommitKeys = 100
	}
	if c.CommitKeySize <= 0 {
		c.CommitKeySize = KiB
	}
	if c.CommitIterations <= 0 {
		c.CommitIterations = 30
	}
	if len(c.Domains) == 0 {
		c.Domains = []int{1, 8, 64}
	}
	if len(c.Writers) == 0 {
		c.Writers = []int{8, 64}
	}
	if c.ThroughputTime <= 0 {
		c.ThroughputTime = 2 * time.Second
	}
	if c.ThroughputRounds <= 0 {
		c.ThroughputRounds = 2
	}
	if len(c.LiveKeys) == 0 {
		c.LiveKeys = []int{10, 1000, 10000}
	}
	if c.MemorySize <= 0 {
		c.MemorySize = GiB
	}
	if c.MemoryTimeout <= 0 {
		c.MemoryTimeout = 10 * time.Minute
	}
	if c.ProcessIterations <= 0 {
		c.ProcessIterations = 20
	}
	if c.Receipts <= 0 {
		c.Receipts = 1000
	}
	if c.ReceiptIterations <= 0 {
		c.ReceiptIterations = 10
	}
	if c.LargeReceipts <= 0 {
		c.LargeReceipts = 10000
	}
	if c.GatewayMultipartSize <= 0 {
		c.GatewayMultipartSize = 256 * MiB
	}
	if c.GatewayPartSize <= 0 {
		c.GatewayPartSize = 16 * MiB
	}
	if c.GatewayPartConcurrency <= 0 {
		c.GatewayPartConcurrency = 4
	}
	return c
}

// validate reports the first field of c (with defaults) that cannot work.
func (c Config) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("bench: invalid config: "+format, args...)
	}
	if c.Backend == nil {
		return bad("no Backend")
	}
	for _, cs := range c.Cases {
		if !slices.Contains(AllCases, cs) {
			return bad("unknown case %q; the cases are %s", cs, caseList())
		}
	}
	if err := objstore.ValidateDomain(c.Prefix); err != nil {
		return bad("Prefix: %w", err)
	}
	for _, sizes := range [][]int64{c.PutSizes, c.GetSizes} {
		for _, s := range sizes {
			if s <= 0 {
				return bad("object size %d is not positive", s)
			}
		}
	}
	for _, n := range c.Domains {
		if n <= 0 {
			return bad("domain count %d is not positive", n)
		}
	}
	for _, n := range c.Writers {
		if n <= 0 {
			return bad("writer count %d is not positive", n)
		}
	}
	for _, n := range c.LiveKeys {
		if n <= 0 {
			return bad("live-key count %d is not positive", n)
		}
	}
	if parts := (c.GatewayMultipartSize + c.GatewayPartSize - 1) / c.GatewayPartSize; parts > maxParts {
		return bad("GatewayMultipartSize %d in parts of GatewayPartSize %d makes %d parts; S3 allows at most %d", c.GatewayMultipartSize, c.GatewayPartSize, parts, maxParts)
	}
	return nil
}

// has reports whether case cs is selected.
func (c Config) has(cs Case) bool { return slices.Contains(c.Cases, cs) }

// iterations returns how many timed iterations a row of size-byte objects
// runs.
func (c Config) iterations(size int64) int {
	n := c.ByteBudget / max(size, 1)
	return int(min(int64(c.Iterations), max(n, minIterations)))
}

// maxParts is the most parts an S3 multipart upload may have.
const maxParts = 10000

// minIterations is the fewest timed iterations a latency row runs unless
// Config.Iterations asks for fewer.
const minIterations = 5
