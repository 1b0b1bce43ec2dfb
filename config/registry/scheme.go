package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/fencedstore/fence/objstore/driver"
)

// Scheme is how config parses, opens, creates and checks the URLs of one
// bucket-style store scheme, NAME://BUCKET[/PREFIX][?PARAMS], whose
// backend lives in a package of its own (gocloud's URLOpener).
type Scheme struct {
	// Form is the URL's form for messages and help, for example
	// "gs://BUCKET[/PREFIX][?endpoint=URL]".
	Form string
	// Params are the query parameters the URLs take, in the order
	// messages list them; each one Location has a field for
	// ("endpoint", "region", "sse", "kms_key_id", "path_style",
	// "account").
	Params []string
	// Kind is what a URL's bucket is called in messages, Init's report
	// and Doctor's checks ("container" for Azure); "" means "bucket".
	Kind string
	// CredentialsHelp says where the scheme's credentials come from, for
	// the messages that refuse credentials in its URLs; "" means the
	// standard AWS chain's.
	CredentialsHelp string
	// CheckBucket returns why a bucket name is wrong, or "" (also for
	// the empty name, when the URL has none). nil means S3's rules.
	CheckBucket func(name string) string
	// CheckEndpoint returns why an endpoint= value is wrong, or "", in
	// place of http(s)://HOST[:PORT]; ParseURL has already refused a
	// value with credentials. nil means http(s)://HOST[:PORT].
	CheckEndpoint func(value string) string
	// Validate returns why a parsed Location cannot be used, or "";
	// nil accepts every one.
	Validate func(Location) string
	// Open opens the backend. It sends no request.
	Open func(ctx context.Context, loc Location) (driver.Backend, error)
	// Bucket returns the URL's bucket (without its prefix) for Init,
	// which creates it, and Doctor, which checks it. It sends no
	// request.
	Bucket func(ctx context.Context, loc Location) (Bucket, error)
	// Reached reports whether err, from the bucket's BucketExists, came
	// with an answer from the server rather than from no connection,
	// a timeout or missing credentials. nil means never.
	Reached func(err error) bool
}

// Bucket is a registered scheme's bucket, which Init creates and Doctor
// checks.
type Bucket interface {
	// Location names the bucket and where it is, without credentials.
	Location() string
	// BucketExists reports whether the bucket exists: (false, nil) when
	// it does not.
	BucketExists(ctx context.Context) (bool, error)
	// EnsureBucket creates the bucket unless it exists.
	EnsureBucket(ctx context.Context) error
}

// Builtin are the schemes whose URL forms config parses itself: file and
// mem, which config also opens, and s3, minio and dynamodb, which their
// packages register with RegisterOpener and RegisterCoordinator.
var Builtin = []string{"file", "mem", "s3", "minio", "dynamodb"}

var (
	mu           sync.RWMutex
	schemes      = map[string]Scheme{}
	openers      = map[string]Opener{}
	coordinators = map[string]Coordinator{}
)

// Register makes config take URLs of scheme name, a lower-case scheme
// such as "gs". It panics when name is malformed, built in or already
// registered, or s lacks Form or Open, as database/sql.Register does:
// call it from an init function.
func Register(name string, s Scheme) {
	mu.Lock()
	defer mu.Unlock()
	_, dup := schemes[name]
	switch {
	case !ValidScheme(name) || name != strings.ToLower(name):
		panic(fmt.Sprintf("config: Register: malformed scheme %q", name))
	case dup || slices.Contains(Builtin, name):
		panic(fmt.Sprintf("config: Register: scheme %q registered twice", name))
	case s.Form == "" || s.Open == nil:
		panic(fmt.Sprintf("config: Register(%q): Form and Open are required", name))
	}
	schemes[name] = s
}

// Lookup returns the registered scheme name.
func Lookup(name string) (Scheme, bool) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := schemes[name]
	return s, ok
}

// Names returns the schemes registered with Register, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(schemes))
	for name := range schemes {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// ValidScheme reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '-' and '.'.
func ValidScheme(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
