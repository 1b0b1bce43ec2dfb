package s3gw

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/s3gw/wire"
)

// CommitMode says when the gateway's writes are published.
type CommitMode int

const (
	// CommitAtEnd stages every write and publishes them all, as one
	// fenced commit, when Gateway.Changes is committed (fence exec does
	// so once the job exits 0). Until then the job alone sees them.
	CommitAtEnd CommitMode = iota
	// CommitEach publishes every completed write (a put, a completed
	// multipart upload, a copy, a delete) as its own fenced commit.
	CommitEach
)

// DefaultBucket is the bucket name a gateway answers for when its store
// has no bucket of its own (file://, mem://, an Azure container).
const DefaultBucket = "fence"

// DefaultRegion is the region a gateway's clients sign for, unless
// Options.Region says otherwise.
const DefaultRegion = "us-east-1"

// Options configure a Gateway.
type Options struct {
	// Store, Domain and Token are where the gateway's writes go: every
	// write is staged, and published, in Domain under Token.
	Store  *objstore.Store
	Domain string
	Token  uint64
	// Holder names the writer in the commit log (objstore.CommitOptions).
	Holder string
	// Bucket is the bucket name clients address. Required.
	Bucket string
	// KeyPrefix is the S3 key prefix of Domain's keys: S3 key
	// KeyPrefix+K is the domain's key K. Default Domain+"/", which is
	// where plain copies put them. A key without the prefix is refused
	// with AccessDenied.
	KeyPrefix string
	// Credentials are the only keys whose signatures are accepted.
	// Required.
	Credentials wire.CredentialStore
	// Region is the region signatures must be scoped to. Default
	// DefaultRegion.
	Region string
	// Commit says when writes are published. Default CommitAtEnd.
	Commit CommitMode
	// Logger receives a line per refused or failed request (never a
	// credential). Default: none.
	Logger *slog.Logger
	// HoldBytes bounds the bytes of the small values (at most the store's
	// InlineMax each) the gateway holds in memory until their commit,
	// rather than staging them (see hold.go). Default DefaultHoldBytes;
	// negative holds none.
	HoldBytes int64
	// Now is the gateway's clock for Last-Modified times and signature
	// dates; nil means time.Now. Nothing the gateway keeps safe depends
	// on it.
	Now func() time.Time
}

// Gateway is an S3 endpoint for one domain under one token: an
// http.Handler. See the package documentation.
type Gateway struct {
	o Options
	v *wire.Verifier

	mu      sync.Mutex
	staged  map[string]*object   // CommitAtEnd: the key's staged value
	deleted map[string]time.Time // CommitAtEnd: keys deleted since the start
	known   map[string]*object   // CommitEach: what this gateway published, by key
	uploads map[string]*upload   // multipart uploads in progress, by id
	dropped []objstore.Receipt   // staged values replaced or deleted: Close discards them
	held    int64                // bytes of the values held (Options.HoldBytes)

	partETags partETags
	stop      error          // why writes are refused, once they are
	writes    sync.WaitGroup // write requests in progress
}

// New returns a gateway over o.Store for o.Domain at o.Token.
func New(o Options) (*Gateway, error) {
	switch {
	case o.Store == nil:
		return nil, errors.New("s3gw: New: no store")
	case o.Credentials == nil:
		return nil, errors.New("s3gw: New: no credentials")
	case o.Bucket == "":
		return nil, errors.New("s3gw: New: no bucket name")
	case o.Commit != CommitAtEnd && o.Commit != CommitEach:
		return nil, fmt.Errorf("s3gw: New: unknown commit mode %d", o.Commit)
	}
	if err := objstore.ValidateDomain(o.Domain); err != nil {
		return nil, err
	}
	if err := objstore.ValidateToken(o.Token); err != nil {
		return nil, err
	}
	if err := validBucket(o.Bucket); err != nil {
		return nil, err
	}
	if o.KeyPrefix == "" {
		o.KeyPrefix = o.Domain + "/"
	}
	if !strings.HasSuffix(o.KeyPrefix, "/") {
		return nil, fmt.Errorf("s3gw: New: key prefix %q must end with /", o.KeyPrefix)
	}
	if o.Region == "" {
		o.Region = DefaultRegion
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.HoldBytes == 0 {
		o.HoldBytes = DefaultHoldBytes
	}
	v, err := wire.NewVerifier(o.Credentials, wire.Options{Region: o.Region, Now: o.Now})
	if err != nil {
		return nil, err
	}
	return &Gateway{
		o: o, v: v,
		staged: map[string]*object{}, deleted: map[string]time.Time{},
		known: map[string]*object{}, uploads: map[string]*upload{},
	}, nil
}

// validBucket checks a bucket name as S3 names them: 3 to 63 lower-case
// letters, digits, dots and hyphens, starting and ending with a letter or
// a digit.
func validBucket(b string) error {
	ok := len(b) >= 3 && len(b) <= 63
	for i := 0; ok && i < len(b); i++ {
		c := b[i]
		edge := i == 0 || i == len(b)-1
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || !edge && (c == '.' || c == '-')
	}
	if !ok {
		return &objstore.InvalidError{What: "bucket", Value: b, Reason: "an S3 bucket name is 3 to 63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or a digit"}
	}
	return nil
}

// Bucket returns the bucket name the gateway answers for.
func (g *Gateway) Bucket() string { return g.o.Bucket }

// KeyPrefix returns the S3 key prefix of the domain's keys.
func (g *Gateway) KeyPrefix() string { return g.o.KeyPrefix }

// LeaseLost makes every later write request fail with the S3 error
// FenceLeaseLost, which says why; a write in progress stages nothing more
// once it checks. fence exec calls it as soon as it sees the lease lost.
// The store refuses a lost holder's commits whatever the gateway does:
// this only stops the job's writes early, and says why.
func (g *Gateway) LeaseLost(cause error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop == nil || !errors.Is(g.stop, errLeaseLost) {
		g.stop = fmt.Errorf("%w: %w", errLeaseLost, cause)
	}
}

var (
	errLeaseLost = errors.New("the lease on the domain was lost")
	errStopped   = errors.New("the job has ended: the gateway takes no more writes")
)

// beginWrite admits a write request, or says why it is refused. The
// caller calls done when the request is over.
func (g *Gateway) beginWrite() (done func(), err *wire.Error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop != nil {
		return nil, g.stopError()
	}
	g.writes.Add(1)
	return g.writes.Done, nil
}

// admit admits a write request, or answers it with why not: the caller
// goes on only when ok, and calls done when the request is over.
func (g *Gateway) admit(q *request) (done func(), ok bool) {
	done, e := g.beginWrite()
	if e != nil {
		q.fail(e)
		return nil, false
	}
	return done, true
}

// stopError is the S3 error of a refused write; g.mu is held.
func (g *Gateway) stopError() *wire.Error {
	if errors.Is(g.stop, errLeaseLost) {
		return &wire.Error{Code: CodeLeaseLost, Status: http.StatusForbidden,
			Message: fmt.Sprintf("fence: %v; this job's writes to domain %q at token %d can no longer be published, and nothing more is staged", g.stop, g.o.Domain, g.o.Token)}
	}
	return &wire.Error{Code: wire.CodeServiceUnavailable, Status: http.StatusServiceUnavailable, Message: "fence: " + g.stop.Error()}
}

// CodeLeaseLost is the S3 error code of a write refused because the
// job's lease was lost (HTTP 403, which clients do not retry).
const CodeLeaseLost = "FenceLeaseLost"

// stillWriting reports, for a write about to stage or publish, whether
// the gateway still takes writes.
func (g *Gateway) stillWriting() *wire.Error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop != nil && errors.Is(g.stop, errLeaseLost) {
		return g.stopError()
	}
	return nil
}

// Stop refuses every later write and waits, until ctx ends, for the
// writes in progress to finish. After Stop, Changes is final.
func (g *Gateway) Stop(ctx context.Context) error {
	g.mu.Lock()
	if g.stop == nil {
		g.stop = errStopped
	}
	g.mu.Unlock()
	idle := make(chan struct{})
	go func() { g.writes.Wait(); close(idle) }()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("s3gw: writes still in progress: %w", context.Cause(ctx))
	}
}

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return strings.ToUpper(hex.EncodeToString(b[:]))
}
