package objstore

import (
	"context"
	"log/slog"
	"time"

	"github.com/fencedstore/fence/rules"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/observe"
)

// Store makes writes to a Backend safe against stale lease holders. Every
// write carries a (domain, token) pair; the domain's manifest records the
// highest token accepted, and a conditional write on the manifest both
// checks the token and publishes the write, so a write with a lower token
// never becomes visible.
//
// A Store is safe for concurrent use. It owns fencing, validation,
// checksums and retries; the Backend only stores bytes.
type Store struct {
	b        driver.Backend // raw, or reporting its calls to Options.Observer
	raw      driver.Backend
	opts     Options
	cache    manifestCache
	versions *versionCache
	shards   shardCache
	issued   issued
	claims   claims
	seen     seenManifests
	groups   groups
	partBuf  partBudget // stage_parts_budget.go
	lists    listMemo   // list_memo.go
}

// Options tunes a Store. The zero value (or nil) gives the defaults.
type Options struct {
	// Holder is recorded in the manifest's commit log for diagnostics.
	// Default: rules.DefaultHolder(), "<hostname>/<pid>", as coord's.
	Holder string
	// LogLimit is the number of recent commits kept in the manifest's
	// commit log. Default 64. It also bounds how far back an ambiguous
	// commit can be recognised by its id.
	LogLimit int
	// UploadParallelism bounds concurrent version uploads in one commit.
	// Default 16.
	UploadParallelism int
	// Now returns the current time for commit timestamps. Default time.Now.
	Now func() time.Time
	// Logger receives retries and ambiguous outcomes at debug and warn
	// level. Default: discard.
	Logger *slog.Logger
	// VersionCacheBytes bounds the memory used to keep the verified bytes
	// of small versions (up to 1 MiB each), which never change once
	// written. Default 32 MiB; negative disables the cache.
	VersionCacheBytes int64
	// Issuer, when set, is asked before a commit raises a domain's
	// highest token whether the coordinator issued that token; a token it
	// never issued is refused before anything is written. Without one,
	// the Store trusts every token in range, as a store with no
	// coordinator must.
	Issuer TokenIssuer
	// SkipProbe turns off the capability probe that, before the first
	// write, proves the backend honours conditional writes. Only for
	// stores known to honour them: on one that ignores them, nothing is
	// fenced. New logs a warning when it is set.
	SkipProbe bool
	// ProbeCache keeps the probe's verdict beyond this process
	// (driver.ProbeWith; objstore/probecache keeps it in files), so
	// that processes writing to one location probe it once per the
	// cache's lifetime. Default none: each process probes once.
	ProbeCache driver.VerdictCache
	// PlainCopies makes every commit also write each key it puts to the
	// key's plain object, <domain>/<key>, where any S3 client can read
	// it, and delete the plain objects of the keys it deletes; see
	// docs/design.md, "Plain copies". It needs a backend that keeps
	// object metadata (driver.Capabilities).
	PlainCopies bool
	// InlineMax is the largest value, in bytes, that a commit keeps in
	// the manifest itself instead of a version object of its own, so
	// that a commit of small values is one conditional write and a cold
	// read of a small key one GET. Default 4096; negative turns inline
	// values off. See docs/manifest.md, "Inline values".
	InlineMax int64
	// InlineBudget bounds the bytes of inline values one manifest holds:
	// a commit that would pass it first moves the oldest inline values
	// to their version objects, until half the budget is left. It keeps
	// the manifest, which every commit rewrites, small. Default 256 KiB.
	InlineBudget int64
	// VerifySHA256 makes readers check every version's SHA-256 as well
	// as its size and CRCs. By default a version whose entry records its
	// CRC-32C and CRC-32 is checked by those (a 64-bit check that catches
	// a torn, truncated or substituted object, and costs a small fraction
	// of SHA-256's CPU), and only one written before they were recorded
	// by its SHA-256. Set it to also refuse bytes crafted to match the
	// CRCs, which only a writer to the version objects could place; see
	// docs/design.md, "Checking what is read".
	VerifySHA256 bool
	// PartBufferBytes bounds the memory that StageParts uploads of this
	// Store use together to keep parts that arrive ahead of their turn to
	// be hashed; a part that does not fit is read back by Complete.
	// Default 64 MiB; negative keeps none.
	PartBufferBytes int64
	// Observer receives every commit's outcome, every collection, and
	// every call to the backend with its latency (see package observe:
	// observe.Log for logs, promobs for Prometheus metrics). Default:
	// none.
	Observer observe.Observer
}

// New returns a Store over b. opts may be nil.
func New(b driver.Backend, opts *Options) *Store {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Holder == "" {
		o.Holder = rules.DefaultHolder()
	}
	if o.LogLimit <= 0 {
		o.LogLimit = 64
	}
	if o.UploadParallelism <= 0 {
		o.UploadParallelism = 16
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case o.InlineMax == 0:
		o.InlineMax = 4096
	case o.InlineMax < 0:
		o.InlineMax = -1
	}
	if o.InlineBudget <= 0 {
		o.InlineBudget = 256 << 10
	}
	switch {
	case o.VersionCacheBytes == 0:
		o.VersionCacheBytes = 32 << 20
	case o.VersionCacheBytes < 0:
		o.VersionCacheBytes = 0
	}
	if o.SkipProbe {
		o.Logger.Warn("objstore: capability probe skipped: if this store ignores conditional writes, stale writers will NOT be fenced")
	}
	return &Store{b: observeBackend(b, o.Observer), raw: b, opts: o, versions: newVersionCache(o.VersionCacheBytes)}
}

// InlineMax returns the largest value, in bytes, a commit keeps in the
// manifest itself (Options.InlineMax, after its default), or -1 when
// inline values are off.
func (s *Store) InlineMax() int64 { return s.opts.InlineMax }

// Backend returns the backend the store writes to.
func (s *Store) Backend() driver.Backend { return s.raw }

// probe runs the capability probe (driver.ProbeWith, once per location,
// or once per the lifetime of Options.ProbeCache's verdict) before the
// store's first write, unless Options.SkipProbe is set. It logs, at
// debug level, a verdict that did not come from this process.
func (s *Store) probe(ctx context.Context) error {
	if s.opts.SkipProbe {
		return nil
	}
	v, err := driver.ProbeWith(ctx, s.b, s.opts.ProbeCache)
	switch v {
	case driver.VerdictCached:
		s.opts.Logger.Debug("capability probe: a cached verdict holds", "store", s.b.Location())
	case driver.VerdictProbed:
		s.opts.Logger.Debug("capability probe passed", "store", s.b.Location(), "cached", s.opts.ProbeCache != nil)
	}
	return err
}

// Close closes the backend.
func (s *Store) Close() error { return s.b.Close() }
