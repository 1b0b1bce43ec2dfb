package s3store

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/fencedstore/fence/rules"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/logging"

	"github.com/fencedstore/fence/internal/awsretry"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/internal/s3err"
	"github.com/fencedstore/fence/transport"
)

// Multipart limits of S3 (and MinIO).
const (
	// DefaultPartSize is the part size of multipart uploads when
	// Options.PartSize is zero. Put holds at most two parts in memory.
	DefaultPartSize = 16 << 20
	// MinPartSize is the smallest part S3 accepts (all parts but the last).
	MinPartSize = 5 << 20
	// DefaultSinglePutMax is Options.SinglePutMax when it is zero: a
	// 64 MiB body sent whole took 0.97x to 1.0x the time of one plain
	// PutObject at a local MinIO, and in 16 MiB parts 1.12x.
	DefaultSinglePutMax = 64 << 20
	// MaxSinglePut is the largest object S3 accepts in one PutObject.
	MaxSinglePut = 5 << 30
)

// Options configures a Backend. The zero value (or nil) gives the
// defaults.
type Options struct {
	// Endpoint is the base URL of an S3-compatible store, for example
	// "http://127.0.0.1:9000". Empty means the endpoint the AWS
	// configuration gives (AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the
	// shared config file), else AWS S3 itself. Open only; it must not
	// carry credentials.
	Endpoint string
	// Region overrides the configured region (AWS_REGION, the profile).
	// When neither sets one, Open uses "us-east-1". Open only.
	Region string
	// Timeouts bound each request (connect, first byte, idle); zero
	// fields take transport's defaults. No operation has a deadline of
	// its own. Open only.
	Timeouts transport.Timeouts
	// PathStyle addresses buckets as ENDPOINT/BUCKET rather than
	// BUCKET.ENDPOINT, as most S3-compatible stores need. Open only.
	PathStyle bool
	// SSE selects server-side encryption of written objects: "" (the
	// bucket's default), "AES256" (SSE-S3) or "aws:kms" (SSE-KMS).
	SSE string
	// KMSKeyID is the KMS key for SSE "aws:kms"; empty means the
	// account's default key. It is rejected with any other SSE.
	KMSKeyID string
	// PartSize is the part size of multipart uploads, at least
	// MinPartSize. Default DefaultPartSize.
	PartSize int64
	// MultipartThreshold is the largest known size that is written with
	// one PutObject; larger bodies, and bodies of unknown size that turn
	// out larger than PartSize, use a multipart upload. Default PartSize.
	//
	// A Put holds two parts, or one body of up to MultipartThreshold, in
	// memory: max(2*PartSize, MultipartThreshold) bounds its buffers.
	MultipartThreshold int64
	// SinglePutMax is the largest known size of a body that can be
	// rewound (an io.ReadSeeker, such as a file or a bytes.Reader) that
	// is written with one PutObject. Such a body is not buffered: Put
	// reads it once to hash it, rewinds it, and streams it. Default
	// DefaultSinglePutMax; at most MaxSinglePut; below
	// MultipartThreshold it has no effect.
	SinglePutMax int64
}

// Backend stores objects in one S3 bucket under a key prefix. It
// implements driver.Backend and is safe for
// concurrent use.
type Backend struct {
	client    *s3.Client
	bucket    string
	prefix    string // "" or ends in "/"
	location  string
	endpoint  string // where requests go, without credentials
	sse       types.ServerSideEncryption
	kmsKeyID  string
	partSize  int64
	threshold int64
	singleMax int64
}

var (
	_ driver.Backend         = (*Backend)(nil)
	_ driver.MultipartPutter = (*Backend)(nil)
)

// New returns a backend that stores objects in bucket under prefix,
// through client. A non-empty prefix is used as a folder: "tenant" and
// "tenant/" both put key "k" at "tenant/k". opts may be nil. Invalid
// options (see Options) and an empty bucket fail with an error matching
// rules.ErrInvalid.
//
// Whatever client's own settings, every call asks for request checksums
// and response checksum validation only when an operation requires them,
// which S3-compatible stores need. client's HTTP transport is its own:
// Open builds one with transport.Timeouts.Apply, which bounds each
// request and keeps a store's answer from being lost to the reset that
// follows it; give client such a transport for the same.
func New(client *s3.Client, bucket, prefix string, opts *Options) (*Backend, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := validate(&o); err != nil {
		return nil, err
	}
	if bucket == "" {
		return nil, &rules.InvalidError{What: "bucket", Value: bucket, Reason: "empty"}
	}
	b := &Backend{client: client, bucket: bucket, prefix: cleanPrefix(prefix)}
	b.sse, b.kmsKeyID = types.ServerSideEncryption(o.SSE), o.KMSKeyID
	b.partSize, b.threshold, b.singleMax = o.PartSize, o.MultipartThreshold, o.SinglePutMax
	co := client.Options()
	b.location = location(bucket, b.prefix, aws.ToString(co.BaseEndpoint), co.Region)
	b.endpoint = b.location[strings.LastIndex(b.location, "@")+1:]
	return b, nil
}

// Open loads the standard AWS configuration (environment, shared config
// and credentials files and their profile, AWS_ENDPOINT_URL_S3,
// AWS_REGION), applies opts and returns a backend for bucket and prefix.
// Credentials come only from that chain. Open sends no request.
func Open(ctx context.Context, bucket, prefix string, opts *Options) (*Backend, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := validate(&o); err != nil {
		return nil, err
	}
	if bucket == "" {
		return nil, &rules.InvalidError{What: "bucket", Value: bucket, Reason: "empty"}
	}
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		switch {
		case err != nil || u.Scheme == "" || u.Host == "":
			return nil, &rules.InvalidError{What: "endpoint", Value: redact(o.Endpoint), Reason: "want an absolute URL such as http://127.0.0.1:9000"}
		case u.User != nil:
			return nil, &rules.InvalidError{What: "endpoint", Value: redact(o.Endpoint), Reason: "credentials in the endpoint URL are not accepted; use the AWS credential chain (environment, shared credentials file)"}
		}
	}
	// The SDK's own warnings ("falling back to IMDSv1", "failed to
	// discard remaining HTTP response body" when a server closes the
	// connection after an error) would go to stderr beside fence's one
	// line per error; the error says what failed.
	lo := []func(*config.LoadOptions) error{config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(o.Timeouts.Apply)),
		config.WithLogger(logging.Nop{})}
	if o.Region != "" {
		lo = append(lo, config.WithRegion(o.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, lo...)
	if err != nil {
		return nil, fmt.Errorf("s3store: loading AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	// An unreachable endpoint fails at the first attempt: the Store
	// does not retry it either (driver.ErrUnreachable).
	awsretry.Apply(&cfg)
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		if o.PathStyle {
			so.UsePathStyle = true
		}
		checksumsWhenRequired(so)
	})
	return New(client, bucket, prefix, &o)
}

// validate checks o and fills in defaults.
func validate(o *Options) error {
	switch o.SSE {
	case "", string(types.ServerSideEncryptionAes256):
		if o.KMSKeyID != "" {
			return &rules.InvalidError{What: "option", Value: "KMSKeyID", Reason: `only valid with SSE "aws:kms"`}
		}
	case string(types.ServerSideEncryptionAwsKms):
	default:
		return &rules.InvalidError{What: "option", Value: "SSE=" + o.SSE, Reason: `want "", "AES256" or "aws:kms"`}
	}
	if o.PartSize == 0 {
		o.PartSize = DefaultPartSize
	}
	if o.PartSize < MinPartSize {
		return &rules.InvalidError{What: "option", Value: fmt.Sprint("PartSize=", o.PartSize), Reason: fmt.Sprintf("below the S3 minimum of %d bytes", MinPartSize)}
	}
	if o.MultipartThreshold == 0 {
		o.MultipartThreshold = o.PartSize
	}
	if o.MultipartThreshold < 0 {
		return &rules.InvalidError{What: "option", Value: fmt.Sprint("MultipartThreshold=", o.MultipartThreshold), Reason: "negative"}
	}
	if o.SinglePutMax == 0 {
		o.SinglePutMax = DefaultSinglePutMax
	}
	if o.SinglePutMax < 0 || o.SinglePutMax > MaxSinglePut {
		return &rules.InvalidError{What: "option", Value: fmt.Sprint("SinglePutMax=", o.SinglePutMax), Reason: fmt.Sprintf("want 1 to %d bytes (S3's limit for one PutObject)", int64(MaxSinglePut))}
	}
	return nil
}

// checksumsWhenRequired makes the SDK compute request checksums and
// validate response checksums only for operations that require them. The
// SDK's default (always, with CRC32 trailers) is refused by many
// S3-compatible stores and proxies.
func checksumsWhenRequired(o *s3.Options) {
	o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
}

func cleanPrefix(p string) string {
	p = strings.Trim(p, "/")
	if p == "" {
		return ""
	}
	return p + "/"
}

func location(bucket, prefix, endpoint, region string) string {
	if endpoint == "" {
		endpoint = "https://s3.amazonaws.com"
		if region != "" {
			endpoint = "https://s3." + region + ".amazonaws.com"
		}
	}
	loc := "s3://" + bucket
	if prefix != "" {
		loc += "/" + strings.TrimSuffix(prefix, "/")
	}
	return loc + "@" + redact(endpoint)
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

// Location returns "s3://BUCKET/PREFIX@ENDPOINT", naming where the
// backend writes. It carries no credentials.
func (b *Backend) Location() string { return b.location }

// Client returns the S3 client the backend uses.
func (b *Backend) Client() *s3.Client { return b.client }

// Bucket returns the backend's bucket.
func (b *Backend) Bucket() string { return b.bucket }

// Prefix returns the key prefix, "" or ending in "/".
func (b *Backend) Prefix() string { return b.prefix }

func (b *Backend) objectKey(key string) string { return b.prefix + key }

// Get opens the object's content, or the range opts asks for. With
// opts.IfNoneMatch, an unchanged object fails with driver.ErrNotModified
// (304) and costs no transfer.
func (b *Backend) Get(ctx context.Context, key string, opts driver.GetOptions) (io.ReadCloser, driver.ObjectInfo, error) {
	in := &s3.GetObjectInput{
		Bucket: aws.String(b.bucket),
		Key:    aws.String(b.objectKey(key)),
	}
	if opts.IfNoneMatch != "" {
		in.IfNoneMatch = aws.String(opts.IfNoneMatch)
	}
	if r := opts.RangeHeader(); r != "" {
		in.Range = aws.String(r)
	}
	out, err := b.client.GetObject(ctx, in, checksumsWhenRequired)
	if err != nil {
		return nil, driver.ObjectInfo{}, b.fail("get", key, err)
	}
	info := driver.ObjectInfo{
		Key:      key,
		Size:     s3err.ObjectSize(aws.ToString(out.ContentRange), aws.ToInt64(out.ContentLength)),
		ETag:     aws.ToString(out.ETag),
		Modified: aws.ToTime(out.LastModified),
		Metadata: driver.NormalizeMetadata(out.Metadata),
	}
	return out.Body, info, nil
}

// Capabilities reports that objects keep their metadata.
func (b *Backend) Capabilities() driver.Capabilities { return driver.Capabilities{Metadata: true} }

// Head returns the object's metadata.
func (b *Backend) Head(ctx context.Context, key string) (driver.ObjectInfo, error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{
		Bucket: aws.String(b.bucket),
		Key:    aws.String(b.objectKey(key)),
	}, checksumsWhenRequired)
	if err != nil {
		return driver.ObjectInfo{}, b.fail("head", key, err)
	}
	return driver.ObjectInfo{
		Key:      key,
		Size:     aws.ToInt64(out.ContentLength),
		ETag:     aws.ToString(out.ETag),
		Modified: aws.ToTime(out.LastModified),
		Metadata: driver.NormalizeMetadata(out.Metadata),
	}, nil
}

// Delete removes the object unconditionally; a missing object is not an
// error.
func (b *Backend) Delete(ctx context.Context, key string) error {
	_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{
		Bucket: aws.String(b.bucket),
		Key:    aws.String(b.objectKey(key)),
	}, checksumsWhenRequired)
	if err != nil {
		return b.fail("delete", key, err)
	}
	return nil
}

// List calls fn for every object whose key starts with prefix, in lexical
// key order, with the backend's prefix stripped from the keys.
func (b *Backend) List(ctx context.Context, prefix string, fn func(driver.ObjectInfo) error) error {
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{
		Bucket: aws.String(b.bucket),
		Prefix: aws.String(b.objectKey(prefix)),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx, checksumsWhenRequired)
		if err != nil {
			return b.fail("list", prefix, err)
		}
		for _, o := range page.Contents {
			k, ok := strings.CutPrefix(aws.ToString(o.Key), b.prefix)
			if !ok {
				continue // cannot happen: S3 filtered by our prefix
			}
			err := fn(driver.ObjectInfo{
				Key:      k,
				Size:     aws.ToInt64(o.Size),
				ETag:     aws.ToString(o.ETag),
				Modified: aws.ToTime(o.LastModified),
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// Close does nothing: the S3 client holds no resources of its own.
func (b *Backend) Close() error { return nil }
