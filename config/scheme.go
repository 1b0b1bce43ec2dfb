package config

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/fencedstore/fence/objstore/driver"
)

// How to add a scheme: write a file config/scheme_NAME.go whose init calls
// Register("NAME", Scheme{...}) with the backend package's open function
// (see scheme_gs.go, and scheme_azblob.go for one whose buckets are
// containers, whose endpoints carry a path and whose URLs take one more
// parameter). ParseURL, OpenBackend, OpenCoordinator, Init and
// Doctor then take NAME://BUCKET[/PREFIX][?PARAMS] URLs; nothing else in
// config changes. A parameter that Location has no field for yet needs
// that field and a case in parseQuery and Location.query.

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

var (
	schemesMu sync.RWMutex
	schemes   = map[string]Scheme{}
)

// builtin are the schemes config handles itself.
var builtin = []string{"file", "mem", "s3", "minio", "dynamodb"}

// Register makes config take URLs of scheme name, a lower-case scheme
// such as "gs". It panics when name is malformed, built in or already
// registered, or s lacks Form or Open, as database/sql.Register does:
// call it from an init function.
func Register(name string, s Scheme) {
	schemesMu.Lock()
	defer schemesMu.Unlock()
	_, dup := schemes[name]
	switch {
	case !validScheme(name) || name != strings.ToLower(name):
		panic(fmt.Sprintf("config: Register: malformed scheme %q", name))
	case dup || slices.Contains(builtin, name):
		panic(fmt.Sprintf("config: Register: scheme %q registered twice", name))
	case s.Form == "" || s.Open == nil:
		panic(fmt.Sprintf("config: Register(%q): Form and Open are required", name))
	}
	schemes[name] = s
}

// lookup returns the registered scheme name.
func lookup(name string) (Scheme, bool) {
	schemesMu.RLock()
	defer schemesMu.RUnlock()
	s, ok := schemes[name]
	return s, ok
}

// registered returns the registered scheme names, sorted.
func registered() []string {
	schemesMu.RLock()
	defer schemesMu.RUnlock()
	names := make([]string, 0, len(schemes))
	for name := range schemes {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// SupportedStores lists every store URL form, the built-in ones
// (Supported) and the registered ones, for messages and help.
func SupportedStores() string {
	s := Supported
	for _, name := range registered() {
		sc, _ := lookup(name)
		s += ", " + sc.Form
	}
	return s
}

// StoreSchemes lists the schemes of store URLs, the built-in ones and the
// registered ones ("file://, mem://, s3://, minio://, gs://, azblob://"),
// for help texts.
func StoreSchemes() string {
	return builtinStores + registeredSchemes()
}

// registeredSchemes is ", gs://, azblob://": one entry per registered
// scheme.
func registeredSchemes() string {
	s := ""
	for _, name := range registered() {
		s += ", " + name + "://"
	}
	return s
}

// supportedSchemes lists every scheme ParseURL accepts, for its messages.
func supportedSchemes() string {
	return builtinStores + ", dynamodb://" + registeredSchemes()
}

// kindOf returns what a URL of scheme calls its bucket: "bucket" unless
// a registered scheme says otherwise.
func kindOf(scheme string) string {
	if s, ok := lookup(scheme); ok && s.Kind != "" {
		return s.Kind
	}
	return "bucket"
}

// credentialsHelpOf says where the credentials of scheme come from.
func credentialsHelpOf(scheme string) string {
	if s, ok := lookup(scheme); ok && s.CredentialsHelp != "" {
		return s.CredentialsHelp
	}
	return credentialsHelp
}

// KnownScheme reports whether ParseURL accepts URLs of scheme name.
func KnownScheme(name string) bool {
	_, ok := lookup(name)
	return ok || slices.Contains(builtin, name)
}
