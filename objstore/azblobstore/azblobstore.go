package azblobstore

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3err"
	"github.com/fencedstore/fence/rules"
	"github.com/fencedstore/fence/transport"
)

// Block limits.
const (
	// DefaultPartSize is the block size of staged uploads when
	// Options.PartSize is zero. Put holds at most two blocks in memory.
	DefaultPartSize = 16 << 20
	// MaxPartSize is the largest block Azure accepts (4000 MiB).
	MaxPartSize = 4000 << 20
	// MaxSinglePut is the largest body Azure accepts in one Put Blob
	// (5000 MiB).
	MaxSinglePut = 5000 << 20
)

// The environment variables Open takes credentials from.
const (
	EnvConnectionString = "AZURE_STORAGE_CONNECTION_STRING"
	EnvAccount          = "AZURE_STORAGE_ACCOUNT"
	EnvKey              = "AZURE_STORAGE_KEY"
)

// Options configures a Backend. The zero value (or nil) gives the
// defaults.
type Options struct {
	// Endpoint is the blob service's URL: for Azurite
	// "http://127.0.0.1:10000/devstoreaccount1" (the account is the
	// path), for Azure "https://ACCOUNT.blob.core.windows.net". Empty
	// means the connection string's, else
	// https://ACCOUNT.blob.core.windows.net. It must not carry
	// credentials (a user, a query such as a SAS token).
	Endpoint string
	// Account names the storage account when the endpoint is the default
	// one; it must agree with AZURE_STORAGE_ACCOUNT when that is set.
	Account string
	// Timeouts bound each request (connect, first byte, idle); zero
	// fields take transport's defaults.
	Timeouts transport.Timeouts
	// PartSize is the block size of staged uploads, 1 byte to
	// MaxPartSize. Default DefaultPartSize.
	PartSize int64
	// MultipartThreshold is the largest known size written with one Put
	// Blob; larger bodies, and bodies of unknown size that turn out
	// larger than PartSize, are staged in blocks and committed with Put
	// Block List. Default PartSize; at most MaxSinglePut.
	MultipartThreshold int64
}

// Backend stores objects as block blobs in one Azure Blob Storage
// container under a key prefix. It implements driver.Backend and
// driver.MultipartPutter and is safe for concurrent use.
type Backend struct {
	client    *container.Client
	container string
	prefix    string // "" or ends in "/"
	endpoint  string // the service URL, without credentials
	location  string
	partSize  int64
	threshold int64
	pageSize  int32    // blobs per List page; 0 is the service's (5000)
	partOpts  sync.Map // upload id -> driver.PutOptions (parts.go)
}

var (
	_ driver.Backend         = (*Backend)(nil)
	_ driver.MultipartPutter = (*Backend)(nil)
	_ driver.KeyChecker      = (*Backend)(nil)
)

// New returns a backend that stores objects in the container client
// names, under prefix. A non-empty prefix is used as a folder: "tenant"
// and "tenant/" both put key "k" at "tenant/k". opts may be nil; only its
// PartSize and MultipartThreshold apply (client has its own transport).
// Invalid options fail with an error matching rules.ErrInvalid.
func New(client *container.Client, prefix string, opts *Options) (*Backend, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := validate(&o); err != nil {
		return nil, err
	}
	u, err := url.Parse(client.URL())
	if err != nil {
		return nil, fmt.Errorf("azblobstore: container URL: %w", err)
	}
	name := u.Path[strings.LastIndexByte(u.Path, '/')+1:]
	u.Path, u.RawPath, u.RawQuery, u.User = strings.TrimSuffix(u.Path, "/"+name), "", "", nil
	b := &Backend{client: client, container: name, prefix: cleanPrefix(prefix), endpoint: u.String(),
		partSize: o.PartSize, threshold: o.MultipartThreshold}
	b.location = "azblob://" + name
	if b.prefix != "" {
		b.location += "/" + strings.TrimSuffix(b.prefix, "/")
	}
	b.location += "@" + b.endpoint
	return b, nil
}

// Open returns a backend for containerName and prefix, with credentials
// from the environment only, in this order:
//
//   - AZURE_STORAGE_CONNECTION_STRING (its endpoint, unless
//     opts.Endpoint names the same one);
//   - AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY: a shared key;
//   - otherwise azidentity's DefaultAzureCredential (environment,
//     workload identity, managed identity, Azure CLI, ...), for the
//     account opts.Account or AZURE_STORAGE_ACCOUNT names, or at
//     opts.Endpoint.
//
// Open sends no request: a missing container or wrong credentials show
// on first use.
func Open(ctx context.Context, containerName, prefix string, opts *Options) (*Backend, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := validate(&o); err != nil {
		return nil, err
	}
	if reason := checkContainer(containerName); reason != "" {
		return nil, &rules.InvalidError{What: "container", Value: containerName, Reason: reason}
	}
	if o.Endpoint != "" {
		if reason := checkEndpoint(o.Endpoint); reason != "" {
			return nil, &rules.InvalidError{What: "endpoint", Value: redact(o.Endpoint), Reason: reason}
		}
	}
	envAccount := os.Getenv(EnvAccount)
	if o.Account != "" && envAccount != "" && o.Account != envAccount {
		return nil, &rules.InvalidError{What: "account", Value: o.Account, Reason: fmt.Sprintf("%s names another account, %q", EnvAccount, envAccount)}
	}
	account := o.Account
	if account == "" {
		account = envAccount
	}
	co := &container.ClientOptions{ClientOptions: policy.ClientOptions{Transport: o.Timeouts.Client(), Retry: retryOptions()}}
	var (
		client *container.Client
		err    error
	)
	if cs := os.Getenv(EnvConnectionString); cs != "" {
		client, err = container.NewClientFromConnectionString(cs, containerName, co)
		if err != nil {
			// The SDK's message may quote the string, key and all.
			return nil, fmt.Errorf("azblobstore: %s is not a valid connection string (its value is not shown)", EnvConnectionString)
		}
		if o.Endpoint != "" {
			if got := strings.TrimSuffix(client.URL(), "/"+containerName); !sameEndpoint(got, o.Endpoint) {
				return nil, &rules.InvalidError{What: "endpoint", Value: redact(o.Endpoint), Reason: fmt.Sprintf("%s names another endpoint, %s", EnvConnectionString, redact(got))}
			}
		}
		return New(client, prefix, &o)
	}
	endpoint := strings.TrimSuffix(o.Endpoint, "/")
	if endpoint == "" {
		if account == "" {
			return nil, &rules.InvalidError{What: "account", Value: "", Reason: fmt.Sprintf("no storage account: set %s, or the account= or endpoint= parameter, or %s", EnvAccount, EnvConnectionString)}
		}
		endpoint = "https://" + account + ".blob.core.windows.net"
	}
	containerURL := endpoint + "/" + containerName
	if key := os.Getenv(EnvKey); key != "" {
		if account == "" {
			return nil, &rules.InvalidError{What: "account", Value: "", Reason: fmt.Sprintf("%s is set but %s is not: a shared key needs the account name", EnvKey, EnvAccount)}
		}
		cred, err := container.NewSharedKeyCredential(account, key)
		if err != nil {
			return nil, fmt.Errorf("azblobstore: %s is not a valid shared key (base64) for account %q (its value is not shown)", EnvKey, account)
		}
		client, err = container.NewClientWithSharedKeyCredential(containerURL, cred, co)
		if err != nil {
			return nil, fmt.Errorf("azblobstore: %w", err)
		}
		return New(client, prefix, &o)
	}
	if strings.HasPrefix(endpoint, "http://") {
		// An Azure identity's token is sent over TLS only: the SDK
		// would refuse every request to this endpoint with "authorized
		// requests are not permitted for non-TLS protected (https)
		// endpoints". Open still sends nothing; each request fails,
		// unsent, saying what is missing.
		co.PerCallPolicies = append(co.PerCallPolicies, refuse{fmt.Errorf("no Azure credentials found for %s: set %s, or %s and %s (an Azure identity, DefaultAzureCredential, works only with an https endpoint): %w",
			redact(endpoint), EnvConnectionString, EnvAccount, EnvKey, driver.ErrPermission)})
		client, err = container.NewClientWithNoCredential(containerURL, co)
		if err != nil {
			return nil, fmt.Errorf("azblobstore: %w", err)
		}
		return New(client, prefix, &o)
	}
	cred, err := azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{ClientOptions: co.ClientOptions})
	if err != nil {
		return nil, fmt.Errorf("azblobstore: no credentials: set %s, or %s and %s, or configure Azure identity (DefaultAzureCredential): %w", EnvConnectionString, EnvAccount, EnvKey, err)
	}
	client, err = container.NewClient(containerURL, cred, co)
	if err != nil {
		return nil, fmt.Errorf("azblobstore: %w", err)
	}
	return New(client, prefix, &o)
}

// validate checks o and fills in defaults.
func validate(o *Options) error {
	if o.PartSize == 0 {
		o.PartSize = DefaultPartSize
	}
	if o.PartSize < 0 || o.PartSize > MaxPartSize {
		return &rules.InvalidError{What: "option", Value: fmt.Sprint("PartSize=", o.PartSize), Reason: fmt.Sprintf("want 1 to %d bytes (Azure's largest block)", int64(MaxPartSize))}
	}
	if o.MultipartThreshold == 0 {
		o.MultipartThreshold = o.PartSize
	}
	if o.MultipartThreshold < 0 || o.MultipartThreshold > MaxSinglePut {
		return &rules.InvalidError{What: "option", Value: fmt.Sprint("MultipartThreshold=", o.MultipartThreshold), Reason: fmt.Sprintf("want 1 to %d bytes (Azure's largest Put Blob)", int64(MaxSinglePut))}
	}
	return nil
}

// checkContainer applies Azure's container naming rules: 3 to 63
// lower-case letters, digits and '-', starting and ending with a letter
// or digit, no "--". It returns why name breaks them, or "".
func checkContainer(name string) string {
	ok := len(name) >= 3 && len(name) <= 63 && !strings.Contains(name, "--") &&
		isAlnum(name[0]) && isAlnum(name[len(name)-1])
	for _, c := range []byte(name) {
		ok = ok && (isAlnum(c) || c == '-')
	}
	if !ok {
		return "a container name is 3 to 63 lower-case letters, digits and '-', starting and ending with a letter or digit, without \"--\""
	}
	return ""
}

// CheckContainerName returns why name is not a valid container name, or
// "" when it is: for URL parsers.
func CheckContainerName(name string) string { return checkContainer(name) }

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// checkEndpoint accepts http(s)://HOST[:PORT][/ACCOUNT], without
// credentials or a query (a SAS token is a credential).
func checkEndpoint(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return "want http://HOST:PORT/ACCOUNT (Azurite) or https://ACCOUNT.blob.core.windows.net"
	case u.User != nil:
		return fmt.Sprintf("credentials in the endpoint URL are not accepted; set %s, or %s and %s", EnvConnectionString, EnvAccount, EnvKey)
	case u.Scheme != "http" && u.Scheme != "https":
		return "the scheme must be http or https"
	case u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "?"):
		return fmt.Sprintf("no query or fragment (a SAS token is a credential; set %s, or %s and %s)", EnvConnectionString, EnvAccount, EnvKey)
	case strings.Count(strings.Trim(u.Path, "/"), "/") > 0:
		return "at most one path segment, the account (http://HOST:PORT/ACCOUNT)"
	case strings.Trim(u.Path, "/") == "" && localHost(u.Hostname()):
		return fmt.Sprintf("the account path is missing: an emulator such as Azurite takes the account as the endpoint's path, %s://%s/devstoreaccount1", u.Scheme, u.Host)
	}
	return ""
}

// localHost reports whether host is an IP address or localhost, where a
// blob service (an emulator) names the account in the path, not in the
// host name as Azure does (ACCOUNT.blob.core.windows.net).
func localHost(host string) bool {
	return host == "localhost" || net.ParseIP(host) != nil
}

// CheckEndpoint returns why s is not a valid endpoint, or "" when it is:
// for URL parsers.
func CheckEndpoint(s string) string { return checkEndpoint(s) }

func sameEndpoint(a, b string) bool {
	return strings.TrimSuffix(strings.ToLower(a), "/") == strings.TrimSuffix(strings.ToLower(b), "/")
}

func cleanPrefix(p string) string {
	p = strings.Trim(p, "/")
	if p == "" {
		return ""
	}
	return p + "/"
}

// redact drops user information and the query (a SAS token) from a URL.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery = nil, ""
	return u.String()
}

// Location returns "azblob://CONTAINER/PREFIX@ENDPOINT", naming where the
// backend writes. It carries no credentials.
func (b *Backend) Location() string { return b.location }

// Client returns the container client the backend uses.
func (b *Backend) Client() *container.Client { return b.client }

// Container returns the backend's container.
func (b *Backend) Container() string { return b.container }

// Prefix returns the key prefix, "" or ending in "/".
func (b *Backend) Prefix() string { return b.prefix }

// Endpoint returns the blob service's URL, without credentials.
func (b *Backend) Endpoint() string { return b.endpoint }

func (b *Backend) blobName(key string) string { return b.prefix + key }

// CheckKey refuses a key whose blob name, the prefix included, is longer
// than Azure's limit of 1024 characters.
func (b *Backend) CheckKey(key string) error {
	if n := len([]rune(b.prefix + key)); n > 1024 {
		return &rules.InvalidError{What: "key", Value: key, Reason: fmt.Sprintf(
			"%d characters as a blob name with the store's prefix %q, over Azure's limit of 1024", n, b.prefix)}
	}
	return nil
}

// Capabilities reports that objects keep their metadata.
func (b *Backend) Capabilities() driver.Capabilities { return driver.Capabilities{Metadata: true} }

// Get opens the object's content, or the range opts asks for. With
// opts.IfNoneMatch, an unchanged object fails with driver.ErrNotModified
// (304) and costs no transfer.
func (b *Backend) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	in := &blob.DownloadStreamOptions{}
	if opts.Offset > 0 || opts.Length > 0 {
		in.Range = blob.HTTPRange{Offset: max(opts.Offset, 0), Count: max(opts.Length, 0)}
	}
	if opts.IfNoneMatch != "" {
		etag := azcore.ETag(opts.IfNoneMatch)
		in.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &etag}}
	}
	out, err := b.client.NewBlobClient(b.blobName(key)).DownloadStream(ctx, in)
	if err != nil {
		return nil, driver.ObjectInfo{}, b.fail("get", key, err)
	}
	if out.Body == nil {
		// The SDK reports 304 Not Modified as a response without a body.
		return nil, driver.ObjectInfo{}, fmt.Errorf("azblobstore: get %q: %w", key, driver.ErrNotModified)
	}
	info := driver.ObjectInfo{
		Key:      key,
		Size:     s3err.ObjectSize(deref(out.ContentRange), deref(out.ContentLength)),
		ETag:     string(deref(out.ETag)),
		Modified: deref(out.LastModified),
		Metadata: decodeMetadata(out.Metadata),
	}
	return out.Body, info, nil
}

// Head returns the object's metadata.
func (b *Backend) Head(ctx context.Context, key string) (driver.ObjectInfo, error) {
	out, err := b.client.NewBlobClient(b.blobName(key)).GetProperties(ctx, nil)
	if err != nil {
		return driver.ObjectInfo{}, b.fail("head", key, err)
	}
	return driver.ObjectInfo{
		Key:      key,
		Size:     deref(out.ContentLength),
		ETag:     string(deref(out.ETag)),
		Modified: deref(out.LastModified),
		Metadata: decodeMetadata(out.Metadata),
	}, nil
}

// Delete removes the object unconditionally; a missing object is not an
// error.
func (b *Backend) Delete(ctx context.Context, key string) error {
	_, err := b.client.NewBlobClient(b.blobName(key)).Delete(ctx, nil)
	if err != nil && !isCode(err, codeBlobNotFound) {
		return b.fail("delete", key, err)
	}
	return nil
}

// List calls fn for every object whose key starts with prefix, in lexical
// key order (Azure lists blob names in that order), with the backend's
// prefix stripped from the keys.
func (b *Backend) List(ctx context.Context, prefix string, fn func(driver.ObjectInfo) error) error {
	opts := &container.ListBlobsFlatOptions{Prefix: ptr(b.blobName(prefix))}
	if b.pageSize > 0 {
		opts.MaxResults = &b.pageSize
	}
	p := b.client.NewListBlobsFlatPager(opts)
	for p.More() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return b.fail("list", prefix, err)
		}
		for _, o := range page.Segment.BlobItems {
			k, ok := strings.CutPrefix(deref(o.Name), b.prefix)
			if !ok || o.Properties == nil {
				continue // cannot happen: Azure filtered by our prefix
			}
			err := fn(driver.ObjectInfo{
				Key:      k,
				Size:     deref(o.Properties.ContentLength),
				ETag:     quoted(deref(o.Properties.ETag)),
				Modified: deref(o.Properties.LastModified),
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// Close does nothing: the client holds no resources of its own.
func (b *Backend) Close() error { return nil }

// quoted returns etag in double quotes, as the ETag header has it: Azure
// lists ETags without them.
func quoted(etag azcore.ETag) string {
	s := string(etag)
	if s == "" || strings.HasPrefix(s, `"`) {
		return s
	}
	return `"` + s + `"`
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func ptr[T any](v T) *T { return &v }
