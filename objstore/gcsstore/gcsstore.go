package gcsstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	htransport "google.golang.org/api/transport/http"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
	"github.com/fencedstore/fence/transport"
)

// Sizes of uploads.
const (
	// DefaultChunkSize is Options.ChunkSize when it is zero: the SDK's
	// default.
	DefaultChunkSize = 16 << 20
	// MinChunkSize is the smallest chunk GCS takes; the SDK rounds
	// every chunk size up to a multiple of it.
	MinChunkSize = 256 << 10
	// DefaultMaxAttempts is Options.MaxAttempts when it is zero.
	DefaultMaxAttempts = 4
)

// Options configures a Backend. The zero value (or nil) gives the
// defaults.
type Options struct {
	// Endpoint is the base URL of a GCS emulator such as fake-gcs-server,
	// "http://127.0.0.1:4443"; the JSON API is at ENDPOINT/storage/v1/.
	// With it the client sends no credentials at all
	// (option.WithoutAuthentication), as the SDK does for
	// STORAGE_EMULATOR_HOST. Empty means Google Cloud Storage with
	// Application Default Credentials. It must not carry credentials.
	// Open only.
	Endpoint string
	// Project is the project that EnsureBucket creates the bucket in.
	// Empty means GOOGLE_CLOUD_PROJECT, then the project of the
	// Application Default Credentials; an emulator takes any.
	Project string
	// Timeouts bound each request (connect, first byte, idle); zero
	// fields take transport's defaults. Open only.
	Timeouts transport.Timeouts
	// ChunkSize is the size of the chunks of a resumable upload, and the
	// threshold above which Put uses one: a body that fits in one chunk
	// is sent with one request. At least MinChunkSize; default
	// DefaultChunkSize. A Put holds one chunk in memory; a Put of a body
	// known to fit in one, the smallest multiple of MinChunkSize that does.
	ChunkSize int
	// MaxAttempts bounds how many times the SDK sends one request that
	// it may retry (a conditional write, a read) after a 429, a 5xx or a
	// lost connection; for a Put, all its requests together. Default
	// DefaultMaxAttempts. The Store retries what still fails, after
	// reading back, under the caller's context.
	MaxAttempts int
}

// Backend stores objects in one GCS bucket under a key prefix. It
// implements driver.Backend and is safe for concurrent use.
type Backend struct {
	client   *storage.Client
	bucket   *storage.BucketHandle
	name     string
	prefix   string // "" or ends in "/"
	location string
	endpoint string // "" for GCS
	project  string
	emulated bool
	chunk    int
	attempts int
	own      bool // Close closes client
}

var _ driver.Backend = (*Backend)(nil)

// New returns a backend that stores objects in bucket under prefix
// through client, which the caller closes after the backend. A non-empty
// prefix is used as a folder: "tenant" and "tenant/" both put key "k" at
// "tenant/k". opts may be nil; its Endpoint, Timeouts and MaxAttempts
// are not used (they configure the client Open builds). endpoint names
// where client sends its requests, for Location ("" for GCS).
func New(client *storage.Client, bucket, prefix, endpoint string, opts *Options) (*Backend, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := validate(&o); err != nil {
		return nil, err
	}
	if reason := CheckBucket(bucket); reason != "" {
		return nil, &rules.InvalidError{What: "bucket", Value: bucket, Reason: reason}
	}
	b := &Backend{
		client: client, bucket: client.Bucket(bucket), name: bucket, prefix: cleanPrefix(prefix),
		endpoint: strings.TrimSuffix(redact(endpoint), "/"),
		project:  o.Project, emulated: endpoint != "", chunk: o.ChunkSize, attempts: o.MaxAttempts,
	}
	b.location = location(bucket, b.prefix, endpoint)
	return b, nil
}

// Open returns a backend for bucket and prefix with a client of its own:
// Google Cloud Storage with Application Default Credentials, or, with
// opts.Endpoint, an emulator without credentials. Credentials come only
// from Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS,
// gcloud's application-default login, the metadata server); Open fails,
// naming the cause, when there are none. Open sends no request to the
// store.
func Open(ctx context.Context, bucket, prefix string, opts *Options) (*Backend, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := validate(&o); err != nil {
		return nil, err
	}
	if reason := CheckBucket(bucket); reason != "" {
		return nil, &rules.InvalidError{What: "bucket", Value: bucket, Reason: reason}
	}
	base := o.Timeouts.Client().Transport
	var copts []option.ClientOption
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		switch {
		case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
			return nil, &rules.InvalidError{What: "endpoint", Value: redact(o.Endpoint), Reason: "want an absolute URL such as http://127.0.0.1:4443"}
		case u.User != nil:
			return nil, &rules.InvalidError{What: "endpoint", Value: redact(o.Endpoint), Reason: "credentials in the endpoint URL are not accepted"}
		}
		// What the SDK does for STORAGE_EMULATOR_HOST: the JSON API
		// under /storage/v1/, no authentication.
		copts = append(copts, option.WithEndpoint(strings.TrimSuffix(o.Endpoint, "/")+"/storage/v1/"),
			option.WithoutAuthentication(), option.WithHTTPClient(&http.Client{Transport: base}))
	} else {
		rt, err := htransport.NewTransport(ctx, base, option.WithScopes(storage.ScopeFullControl))
		if err != nil {
			return nil, fmt.Errorf("gcsstore: Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default login, or the metadata server): %w", err)
		}
		copts = append(copts, option.WithHTTPClient(&http.Client{Transport: rt}))
	}
	client, err := storage.NewClient(ctx, copts...)
	if err != nil {
		return nil, fmt.Errorf("gcsstore: new client: %w", err)
	}
	client.SetRetry(storage.WithMaxAttempts(o.MaxAttempts), storage.WithErrorFunc(shouldRetry))
	b, err := New(client, bucket, prefix, o.Endpoint, &o)
	if err != nil {
		client.Close()
		return nil, err
	}
	b.own = true
	return b, nil
}

// validate checks o and fills in defaults.
func validate(o *Options) error {
	if o.ChunkSize == 0 {
		o.ChunkSize = DefaultChunkSize
	}
	if o.ChunkSize < MinChunkSize {
		return &rules.InvalidError{What: "option", Value: fmt.Sprint("ChunkSize=", o.ChunkSize), Reason: fmt.Sprintf("below GCS's minimum chunk of %d bytes", MinChunkSize)}
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.MaxAttempts < 1 {
		return &rules.InvalidError{What: "option", Value: fmt.Sprint("MaxAttempts=", o.MaxAttempts), Reason: "want at least 1"}
	}
	return nil
}

// CheckBucket returns why name is not a GCS bucket name, or "": 3 to 63
// lower-case letters, digits, '-', '_' and '.', starting and ending with
// a letter or digit (names with dots, up to 222 characters, are
// domain-named buckets and are not accepted here).
func CheckBucket(name string) string {
	ok := len(name) >= 3 && len(name) <= 63 && !strings.Contains(name, "..") &&
		isAlnum(name[0]) && isAlnum(name[len(name)-1]) && !strings.HasPrefix(name, "goog")
	for _, c := range []byte(name) {
		ok = ok && (isAlnum(c) || c == '.' || c == '-' || c == '_')
	}
	if !ok {
		return fmt.Sprintf("bucket %q: a GCS bucket name is 3 to 63 lower-case letters, digits, '-', '_' and '.', starting and ending with a letter or digit, and not starting with \"goog\"", name)
	}
	return ""
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func cleanPrefix(p string) string {
	p = strings.Trim(p, "/")
	if p == "" {
		return ""
	}
	return p + "/"
}

func location(bucket, prefix, endpoint string) string {
	if endpoint == "" {
		endpoint = "https://storage.googleapis.com"
	}
	loc := "gs://" + bucket
	if prefix != "" {
		loc += "/" + strings.TrimSuffix(prefix, "/")
	}
	return loc + "@" + redact(strings.TrimSuffix(endpoint, "/"))
}

// redact drops any user information from a URL.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		if err != nil && strings.Contains(s, "@") {
			return "(unparsable URL)"
		}
		return s
	}
	u.User = nil
	return u.String()
}

// Location returns "gs://BUCKET/PREFIX@ENDPOINT". It carries no
// credentials.
func (b *Backend) Location() string { return b.location }

// Client returns the GCS client the backend uses.
func (b *Backend) Client() *storage.Client { return b.client }

// Bucket returns the backend's bucket.
func (b *Backend) Bucket() string { return b.name }

// Prefix returns the key prefix, "" or ending in "/".
func (b *Backend) Prefix() string { return b.prefix }

// Endpoint returns the emulator endpoint the backend was made with, without
// credentials, or "" for Google Cloud Storage itself.
func (b *Backend) Endpoint() string { return b.endpoint }

// ChunkSize returns the size of the chunks of a resumable upload, which is
// also the largest body Put sends with one request.
func (b *Backend) ChunkSize() int { return b.chunk }

// UploadChunk returns the ChunkSize Put gives the SDK's Writer for a body
// of size bytes (-1 when unknown): ChunkSize, or for a body known to be
// smaller, the smallest multiple of MinChunkSize that holds it. The SDK
// allocates the whole chunk for every upload.
func (b *Backend) UploadChunk(size int64) int { return chunkFor(size, b.chunk) }

func (b *Backend) object(key string) *storage.ObjectHandle { return b.bucket.Object(b.prefix + key) }

// Capabilities reports that objects keep their metadata.
func (b *Backend) Capabilities() driver.Capabilities { return driver.Capabilities{Metadata: true} }

// etag is the driver's ETag of an object: its generation, in decimal.
func etag(generation int64) string { return strconv.FormatInt(generation, 10) }

// generation parses an ETag back into a generation; ok is false for
// anything no object can have (GCS generations are positive).
func generation(etag string) (gen int64, ok bool) {
	gen, err := strconv.ParseInt(etag, 10, 64)
	return gen, err == nil && gen > 0
}

// Get opens the object's content, or the range opts asks for, in one
// request: the reader's response names the generation it serves (the
// SDK pins it for any reconnection), its size and its metadata. With
// opts.IfNoneMatch, an object whose generation is that one fails with
// driver.ErrNotModified. The SDK's XML reads (its default) do not send
// ifGenerationNotMatch, so the generation served is compared here: a
// revalidation of an unchanged manifest costs its transfer in the one
// round trip, where reading the attributes first cost a round trip more
// whenever it had changed.
func (b *Backend) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	o := b.object(key)
	if gen, ok := generation(opts.IfNoneMatch); ok {
		o = o.If(storage.Conditions{GenerationNotMatch: gen})
	}
	offset := max(opts.Offset, 0)
	r, err := o.NewRangeReader(ctx, offset, readLength(opts))
	switch {
	case err == nil:
		info := b.readerInfo(key, r)
		if opts.IfNoneMatch != "" && opts.IfNoneMatch == info.ETag {
			// Drain a small body, so that the connection is kept.
			_, _ = io.CopyN(io.Discard, r, notModifiedDrain)
			r.Close()
			return nil, driver.ObjectInfo{}, fmt.Errorf("gcsstore: get %q: %w", key, driver.ErrNotModified)
		}
		return r, info, nil
	case status(err) == http.StatusNotModified:
		return nil, driver.ObjectInfo{}, fmt.Errorf("gcsstore: get %q: %w", key, driver.ErrNotModified)
	case status(err) == http.StatusRequestedRangeNotSatisfiable && offset > 0:
		// At or past the end: nothing to read, from an object whose
		// attributes say how long it is.
		return b.getPastEnd(ctx, key, opts)
	}
	return nil, driver.ObjectInfo{}, b.fail(ctx, "get", key, err)
}

// getPastEnd answers a Get whose offset is at or past the object's end
// (GCS answers 416): an empty body, with the object's info. An object
// that has grown since is read again.
func (b *Backend) getPastEnd(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	attrs, err := b.object(key).Attrs(ctx)
	if err != nil {
		return nil, driver.ObjectInfo{}, b.fail(ctx, "get", key, err)
	}
	info := b.info(key, attrs)
	if opts.IfNoneMatch != "" && opts.IfNoneMatch == info.ETag {
		return nil, driver.ObjectInfo{}, fmt.Errorf("gcsstore: get %q: %w", key, driver.ErrNotModified)
	}
	if opts.Offset < attrs.Size {
		r, err := b.object(key).Generation(attrs.Generation).NewRangeReader(ctx, opts.Offset, readLength(opts))
		if err != nil {
			return nil, driver.ObjectInfo{}, b.fail(ctx, "get", key, err)
		}
		return r, info, nil
	}
	return io.NopCloser(strings.NewReader("")), info, nil
}

// notModifiedDrain bounds what Get reads of an unchanged object's body
// before closing it.
const notModifiedDrain = 256 << 10

// readLength is NewRangeReader's length for opts: -1 to the end.
func readLength(opts driver.GetOptions) int64 {
	if opts.Length > 0 {
		return opts.Length
	}
	return -1
}

// readerInfo is the ObjectInfo of what r serves.
func (b *Backend) readerInfo(key string, r *storage.Reader) driver.ObjectInfo {
	return driver.ObjectInfo{
		Key:      key,
		Size:     r.Attrs.Size,
		ETag:     etag(r.Attrs.Generation),
		Modified: r.Attrs.LastModified,
		Metadata: driver.NormalizeMetadata(r.Metadata()),
	}
}

// Head returns the object's metadata.
func (b *Backend) Head(ctx context.Context, key string) (driver.ObjectInfo, error) {
	attrs, err := b.object(key).Attrs(ctx)
	if err != nil {
		return driver.ObjectInfo{}, b.fail(ctx, "head", key, err)
	}
	return b.info(key, attrs), nil
}

func (b *Backend) info(key string, a *storage.ObjectAttrs) driver.ObjectInfo {
	return driver.ObjectInfo{
		Key:      key,
		Size:     a.Size,
		ETag:     etag(a.Generation),
		Modified: a.Updated,
		Metadata: driver.NormalizeMetadata(a.Metadata),
	}
}

// Delete removes the object unconditionally; a missing object is not an
// error.
func (b *Backend) Delete(ctx context.Context, key string) error {
	err := b.object(key).Delete(ctx)
	if err != nil && !errors.Is(err, storage.ErrObjectNotExist) {
		return b.fail(ctx, "delete", key, err)
	}
	return nil
}

// List calls fn for every object whose key starts with prefix, in lexical
// key order (GCS lists in that order, a page of up to 1000 at a time),
// with the backend's prefix stripped from the keys.
func (b *Backend) List(ctx context.Context, prefix string, fn func(driver.ObjectInfo) error) error {
	q := &storage.Query{Prefix: b.prefix + prefix}
	if err := q.SetAttrSelection([]string{"Name", "Size", "Generation", "Updated"}); err != nil {
		return fmt.Errorf("gcsstore: list %q: %w", prefix, err)
	}
	it := b.bucket.Objects(ctx, q)
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return nil
		}
		if err != nil {
			return b.fail(ctx, "list", prefix, err)
		}
		k, ok := strings.CutPrefix(a.Name, b.prefix)
		if !ok {
			continue // cannot happen: GCS filtered by our prefix
		}
		info := b.info(k, a)
		info.Metadata = nil
		if err := fn(info); err != nil {
			return err
		}
	}
}

// Close closes the client when Open made it.
func (b *Backend) Close() error {
	if b.own {
		return b.client.Close()
	}
	return nil
}
