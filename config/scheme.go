package config

import (
	"slices"

	"github.com/fencedstore/fence/config/registry"
)

// How to add a scheme: write a file register.go in the backend's package
// whose init calls registry.Register("NAME", registry.Scheme{...}) with
// the package's open function (see objstore/gcsstore/register.go, and
// objstore/azblobstore/register.go for one whose buckets are containers,
// whose endpoints carry a path and whose URLs take one more parameter).
// A program that imports the package then has ParseURL, OpenBackend,
// OpenCoordinator, Init and Doctor take NAME://BUCKET[/PREFIX][?PARAMS]
// URLs; nothing in config changes, except that fence's own schemes are
// listed in backendImports, so that a program that lacks the import is
// told which one to add. A parameter that Location has no field for yet needs
// that field and a case in parseQuery and Location.query.

// Scheme is how config parses, opens, creates and checks the URLs of one
// bucket-style store scheme, NAME://BUCKET[/PREFIX][?PARAMS], whose
// backend lives in a package of its own (gocloud's URLOpener); see
// registry.Scheme for its fields.
type Scheme = registry.Scheme

// Bucket is a registered scheme's bucket, which Init creates and Doctor
// checks (registry.Bucket).
type Bucket = registry.Bucket

// Register makes config take URLs of scheme name, a lower-case scheme
// such as "gs". It panics when name is malformed, built in or already
// registered, or s lacks Form or Open, as database/sql.Register does:
// call it from an init function. It is registry.Register, which a
// backend's package calls without importing config.
func Register(name string, s Scheme) { registry.Register(name, s) }

// lookup returns the registered scheme name.
func lookup(name string) (Scheme, bool) { return registry.Lookup(name) }

// registered returns the registered scheme names, sorted.
func registered() []string { return registry.Names() }

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

// KnownScheme reports whether ParseURL accepts URLs of scheme name: a
// built-in scheme whose backend this program links, or a registered one.
func KnownScheme(name string) bool {
	_, ok := lookup(name)
	return ok || slices.Contains(registry.Builtin, name) && linked(name)
}
