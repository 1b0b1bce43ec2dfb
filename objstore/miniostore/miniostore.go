package miniostore

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/fencedstore/fence/rules"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/encrypt"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3err"
	"github.com/fencedstore/fence/transport"
)

// Multipart limits.
const (
	// DefaultPartSize is the part size of multipart uploads when
	// Options.PartSize is zero.
	DefaultPartSize = 16 << 20
	// MinPartSize is the smallest part S3 and MinIO accept (all parts
	// but the last).
	MinPartSize = 5 << 20
	// DefaultSinglePutMax is Options.SinglePutMax when it is zero, as
	// s3store.DefaultSinglePutMax.
	DefaultSinglePutMax = 64 << 20
	// MaxSinglePut is the largest object S3 accepts in one PutObject,
	// as s3store.MaxSinglePut.
	MaxSinglePut = 5 << 30
	// DefaultPartConcurrency is Options.PartConcurrency when it is zero:
	// the number of parts minio-go's Client.PutObject sends at once.
	DefaultPartConcurrency = 4
)

// Options configures Open. The zero value (or nil) gives the defaults.
type Options struct {
	// Secure selects https when the endpoint has no scheme.
	Secure bool
	// Timeouts bound each request (connect, first byte, idle); zero
	// fields take transport's defaults. No operation has a deadline of
	// its own. Open only.
	Timeouts transport.Timeouts
	// Region is the bucket's region. Empty lets minio-go ask the server
	// (one GetBucketLocation request per bucket).
	Region string
	// PartSize is the part size of multipart uploads, at least
	// MinPartSize. Default DefaultPartSize. Bodies of known size up to
	// PartSize, and of unknown size that end within one part, are written
	// with one PutObject. A Put holds at most two parts, or one body of
	// up to PartSize, in memory; for a body sent in concurrent parts
	// that is not held in memory (a file), PartConcurrency+1 parts.
	PartSize int64
	// SinglePutMax is the largest known size of a body that can be
	// rewound (an io.ReadSeeker, such as a file or a bytes.Reader) that
	// is written with one PutObject. Such a body is not buffered: Put
	// reads it once to hash it, rewinds it, and streams it. A body that
	// can also be read at any offset (an io.ReaderAt: a file, a
	// bytes.Reader) of two parts or more goes in concurrent parts
	// instead, unless PartConcurrency is 1. Default DefaultSinglePutMax;
	// at most MaxSinglePut; below PartSize it has no effect.
	SinglePutMax int64
	// PartConcurrency is how many parts of a body that can be read at
	// any offset (an io.ReaderAt) are sent at once (see the package
	// documentation). Default DefaultPartConcurrency; 1 sends such
	// bodies as any other body: one PutObject up to SinglePutMax, else
	// parts one after another.
	PartConcurrency int
	// SSE selects server-side encryption of written objects: "" (the
	// bucket's default), "AES256" (SSE-S3) or "aws:kms" (SSE-KMS).
	SSE string
	// KMSKeyID is the KMS key for SSE "aws:kms"; empty means the
	// server's default key. It is rejected with any other SSE.
	KMSKeyID string
}

// Backend stores objects in one bucket of MinIO (or another S3-compatible
// store) under a key prefix, through minio-go. It implements
// driver.Backend and is safe for concurrent use.
type Backend struct {
	client    *minio.Client
	core      minio.Core
	bucket    string
	prefix    string // "" or ends in "/"
	location  string
	endpoint  string // where requests go, without credentials
	partSize  int64
	singleMax int64 // Options.SinglePutMax
	partConc  int   // Options.PartConcurrency
	sse       encrypt.ServerSide
	sseName   string // Options.SSE
	kmsKeyID  string // Options.KMSKeyID
	// hashRefused: the client refused a payload hash given to it (see
	// putSingle), so bodies that can be rewound are not streamed.
	hashRefused atomic.Bool
}

var (
	_ driver.Backend         = (*Backend)(nil)
	_ driver.MultipartPutter = (*Backend)(nil)
	_ driver.HashingPutter   = (*Backend)(nil)
)

// New returns a backend that stores objects in bucket under prefix,
// through client, with the default part size and SinglePutMax and no
// server-side encryption setting. A non-empty prefix is used as a folder: "tenant"
// and "tenant/" both put key "k" at "tenant/k". An empty bucket fails
// with an error matching rules.ErrInvalid. Give client a transport
// wrapped with ExpectContinue, as Open does: without it a large put the
// store refuses from its headers can fail with a connection reset
// instead of ErrPreconditionFailed.
func New(client *minio.Client, bucket, prefix string) (*Backend, error) {
	return newBackend(client, bucket, prefix, Options{})
}

func newBackend(client *minio.Client, bucket, prefix string, o Options) (*Backend, error) {
	b := &Backend{client: client, core: minio.Core{Client: client}, bucket: bucket, prefix: cleanPrefix(prefix)}
	if err := b.configure(o); err != nil {
		return nil, err
	}
	if bucket == "" {
		return nil, &rules.InvalidError{What: "bucket", Value: bucket, Reason: "empty"}
	}
	loc := "minio://" + bucket
	if b.prefix != "" {
		loc += "/" + strings.TrimSuffix(b.prefix, "/")
	}
	u := *client.EndpointURL()
	u.User = nil
	b.endpoint = u.String()
	b.location = loc + "@" + b.endpoint
	return b, nil
}

func (b *Backend) configure(o Options) error {
	switch o.SSE {
	case "":
	case "AES256":
		b.sse = encrypt.NewSSE()
	case "aws:kms":
		b.sse, _ = encrypt.NewSSEKMS(o.KMSKeyID, nil) // fails only for an unencodable context
	default:
		return &rules.InvalidError{What: "option", Value: "SSE=" + o.SSE, Reason: `want "", "AES256" or "aws:kms"`}
	}
	if o.KMSKeyID != "" && o.SSE != "aws:kms" {
		return &rules.InvalidError{What: "option", Value: "KMSKeyID", Reason: `only valid with SSE "aws:kms"`}
	}
	b.sseName, b.kmsKeyID = o.SSE, o.KMSKeyID
	b.partSize = o.PartSize
	if b.partSize == 0 {
		b.partSize = DefaultPartSize
	}
	if b.partSize < MinPartSize {
		return &rules.InvalidError{What: "option", Value: fmt.Sprint("PartSize=", o.PartSize), Reason: fmt.Sprintf("below the minimum of %d bytes", MinPartSize)}
	}
	b.singleMax = o.SinglePutMax
	if b.singleMax == 0 {
		b.singleMax = DefaultSinglePutMax
	}
	if b.singleMax < 0 || b.singleMax > MaxSinglePut {
		return &rules.InvalidError{What: "option", Value: fmt.Sprint("SinglePutMax=", o.SinglePutMax), Reason: fmt.Sprintf("want 1 to %d bytes (S3's limit for one PutObject)", int64(MaxSinglePut))}
	}
	b.partConc = o.PartConcurrency
	if b.partConc == 0 {
		b.partConc = DefaultPartConcurrency
	}
	if b.partConc < 0 {
		return &rules.InvalidError{What: "option", Value: fmt.Sprint("PartConcurrency=", o.PartConcurrency), Reason: "want 1 or more parts at once (0 for the default)"}
	}
	return nil
}

// Open connects to the store at endpoint ("host:port", or a URL
// "http://host:port" or "https://host:port", whose scheme then wins over
// opts.Secure) and returns a backend for bucket and prefix. Credentials
// come only from the environment, in this order: AWS_ACCESS_KEY_ID /
// AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), MINIO_ROOT_USER /
// MINIO_ROOT_PASSWORD, then the AWS shared credentials file (AWS_PROFILE);
// with none, requests are anonymous. An endpoint carrying credentials is
// refused. Open sends no request.
func Open(endpoint, bucket, prefix string, opts *Options) (*Backend, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	host, secure, err := parseEndpoint(endpoint, o.Secure)
	if err != nil {
		return nil, err
	}
	client, err := minio.New(host, &minio.Options{
		Creds: credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{},
			&credentials.EnvMinio{},
			&credentials.FileAWSCredentials{},
		}),
		Secure:    secure,
		Region:    o.Region,
		Transport: ExpectContinue(o.Timeouts.Client().Transport),
	})
	if err != nil {
		return nil, fmt.Errorf("miniostore: %w", err)
	}
	return newBackend(client, bucket, prefix, o)
}

// parseEndpoint returns endpoint's host:port and whether it uses https.
func parseEndpoint(endpoint string, secure bool) (string, bool, error) {
	bad := func(reason string) error {
		return &rules.InvalidError{What: "endpoint", Value: redact(endpoint), Reason: reason}
	}
	if !strings.Contains(endpoint, "://") {
		if strings.ContainsAny(endpoint, "@/") || endpoint == "" {
			return "", false, bad("want host:port or http(s)://host:port, without credentials")
		}
		return endpoint, secure, nil
	}
	u, err := url.Parse(endpoint)
	switch {
	case err != nil:
		return "", false, bad("not a URL")
	case u.User != nil:
		return "", false, bad("credentials in the endpoint URL are not accepted; set AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or MINIO_ROOT_USER / MINIO_ROOT_PASSWORD")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", false, bad("scheme must be http or https")
	case u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "":
		return "", false, bad("want only a scheme and host:port")
	}
	return u.Host, u.Scheme == "https", nil
}

// redact drops user information from a URL.
func redact(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		if j := strings.LastIndex(s, "@"); j > i {
			return s[:i+3] + "REDACTED@" + s[j+1:]
		}
	} else if j := strings.LastIndex(s, "@"); j >= 0 {
		return "REDACTED@" + s[j+1:]
	}
	return s
}

func cleanPrefix(p string) string {
	p = strings.Trim(p, "/")
	if p == "" {
		return ""
	}
	return p + "/"
}

// Location returns "minio://BUCKET/PREFIX@ENDPOINT-URL", naming where the
// backend writes. It carries no credentials.
func (b *Backend) Location() string { return b.location }

// Client returns the minio-go client the backend uses.
func (b *Backend) Client() *minio.Client { return b.client }

// Bucket returns the backend's bucket.
func (b *Backend) Bucket() string { return b.bucket }

// Prefix returns the key prefix, "" or ending in "/".
func (b *Backend) Prefix() string { return b.prefix }

func (b *Backend) objectKey(key string) string { return b.prefix + key }

// Get opens the object's content, or the range opts asks for. With
// opts.IfNoneMatch, an unchanged object fails with driver.ErrNotModified
// (304) and costs no transfer.
func (b *Backend) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	var mo minio.GetObjectOptions
	if opts.IfNoneMatch != "" {
		if err := mo.SetMatchETagExcept(opts.IfNoneMatch); err != nil {
			return nil, driver.ObjectInfo{}, b.fail("get", key, err)
		}
	}
	if r := opts.RangeHeader(); r != "" {
		mo.Set("Range", r)
	}
	rc, oi, h, err := b.core.GetObject(ctx, b.bucket, b.objectKey(key), mo)
	if err != nil {
		return nil, driver.ObjectInfo{}, b.fail("get", key, err)
	}
	info := b.info(key, oi)
	info.Size = s3err.ObjectSize(h.Get("Content-Range"), oi.Size)
	return rc, info, nil
}

func (b *Backend) info(key string, oi minio.ObjectInfo) driver.ObjectInfo {
	return driver.ObjectInfo{Key: key, Size: oi.Size, ETag: oi.ETag, Modified: oi.LastModified, Metadata: driver.NormalizeMetadata(oi.UserMetadata)}
}

// Capabilities reports that objects keep their metadata.
func (b *Backend) Capabilities() driver.Capabilities { return driver.Capabilities{Metadata: true} }

// Head returns the object's metadata.
func (b *Backend) Head(ctx context.Context, key string) (driver.ObjectInfo, error) {
	oi, err := b.client.StatObject(ctx, b.bucket, b.objectKey(key), minio.StatObjectOptions{})
	if err != nil {
		return driver.ObjectInfo{}, b.fail("head", key, err)
	}
	return b.info(key, oi), nil
}

// Delete removes the object unconditionally; a missing object is not an
// error.
func (b *Backend) Delete(ctx context.Context, key string) error {
	if err := b.client.RemoveObject(ctx, b.bucket, b.objectKey(key), minio.RemoveObjectOptions{}); err != nil {
		return b.fail("delete", key, err)
	}
	return nil
}

// List calls fn for every object whose key starts with prefix, in lexical
// key order, with the backend's prefix stripped from the keys.
func (b *Backend) List(ctx context.Context, prefix string, fn func(driver.ObjectInfo) error) error {
	if err := ctx.Err(); err != nil {
		return b.fail("list", prefix, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for oi := range b.client.ListObjectsIter(ctx, b.bucket, minio.ListObjectsOptions{Prefix: b.objectKey(prefix), Recursive: true}) {
		if oi.Err != nil {
			return b.fail("list", prefix, oi.Err)
		}
		k, ok := strings.CutPrefix(oi.Key, b.prefix)
		if !ok {
			continue // cannot happen: the store filtered by our prefix
		}
		if err := fn(b.info(k, oi)); err != nil {
			return err
		}
	}
	// The iterator ends silently when ctx ends.
	if err := ctx.Err(); err != nil {
		return b.fail("list", prefix, err)
	}
	return nil
}

// Close does nothing: the client holds no resources of its own.
func (b *Backend) Close() error { return nil }
