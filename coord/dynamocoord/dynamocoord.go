package dynamocoord

import (
	"context"
	"fmt"
	"net/url"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/internal/awsretry"
	"github.com/fencedstore/fence/transport"
)

// Options tunes a Driver. nil or zero fields mean defaults.
type Options struct {
	// Clock judges expiry and stamps it. Default coord.SystemClock. All
	// holders of a domain should have clocks that agree within a small
	// fraction of the lease TTL.
	Clock coord.Clock
}

// OpenOptions tunes Open and NewClient. nil or zero fields mean the
// standard AWS configuration chain decides.
type OpenOptions struct {
	// Endpoint overrides the DynamoDB endpoint, for example
	// "http://127.0.0.1:8000" for a local server. Default: the chain's
	// (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL, the shared config
	// file), else AWS's own endpoint for the region. It must not carry
	// credentials.
	Endpoint string
	// Region overrides the AWS region (AWS_REGION, the shared config
	// file).
	Region string
	// Clock is passed on as Options.Clock.
	Clock coord.Clock
	// Timeouts bound each request (connect, first byte, idle); zero
	// fields take transport's defaults.
	Timeouts transport.Timeouts
}

// itemAPI lists the DynamoDB calls a Driver makes, so that tests can
// substitute a double. *dynamodb.Client implements it.
type itemAPI interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
}

// tableAPI lists the DynamoDB calls CreateTable makes.
type tableAPI interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

var (
	_ itemAPI      = (*dynamodb.Client)(nil)
	_ tableAPI     = (*dynamodb.Client)(nil)
	_ coord.Driver = (*Driver)(nil)
)

// Driver is a coord.Driver that keeps one item per domain in a DynamoDB
// table and changes it only with conditional UpdateItem calls. Wrap it
// with coord.New, which checks every argument before it reaches the
// driver. It is safe for concurrent use, also by many processes sharing
// the table.
type Driver struct {
	api   itemAPI
	table string
	clock coord.Clock
}

// New returns a Driver over table, reached through client. opts may
// be nil. The table must exist with partition key "domain" of type S (see
// CreateTable). An invalid table name fails with an error matching
// coord.ErrInvalid. A client not made by NewClient keeps the SDK's own check
// of the replies' x-amz-crc32 checksums, which logs a warning for every
// reply without one (see checksum.go).
func New(client *dynamodb.Client, table string, opts *Options) (*Driver, error) {
	if err := validateTable(table); err != nil {
		return nil, err
	}
	return newDriver(client, table, opts), nil
}

func newDriver(api itemAPI, table string, opts *Options) *Driver {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Clock == nil {
		o.Clock = coord.SystemClock{}
	}
	return &Driver{api: api, table: table, clock: o.Clock}
}

// Open returns a Driver over table with a client configured by
// NewClient. It sends nothing; CheckTable checks the table.
func Open(ctx context.Context, table string, opts *OpenOptions) (*Driver, error) {
	if err := validateTable(table); err != nil {
		return nil, err
	}
	client, err := NewClient(ctx, opts)
	if err != nil {
		return nil, err
	}
	var clk coord.Clock
	if opts != nil {
		clk = opts.Clock
	}
	return New(client, table, &Options{Clock: clk})
}

// NewClient returns a DynamoDB client configured by the standard AWS
// chain (environment, shared config and credentials files, web identity,
// instance roles), with opts' Endpoint and Region applied on top.
// Credentials come only from the chain. The client checks each reply's
// x-amz-crc32 checksum, when the reply has one, before decoding it, and
// fails the call on a mismatch (see checksum.go for why the SDK's own
// check is replaced).
func NewClient(ctx context.Context, opts *OpenOptions) (*dynamodb.Client, error) {
	return newClient(ctx, opts)
}

// newClient is NewClient; tests add options, such as a logger, with
// extra.
func newClient(ctx context.Context, opts *OpenOptions, extra ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	var o OpenOptions
	if opts != nil {
		o = *opts
	}
	if o.Endpoint != "" {
		if err := validateEndpoint(o.Endpoint); err != nil {
			return nil, err
		}
	}
	load := []func(*config.LoadOptions) error{config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(o.Timeouts.Apply))}
	if o.Region != "" {
		load = append(load, config.WithRegion(o.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("dynamocoord: load AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, fmt.Errorf("dynamocoord: no AWS region: set AWS_REGION, a region in the shared config file, or the region option")
	}
	// An unreachable endpoint fails at the first attempt.
	awsretry.Apply(&cfg)
	return dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){func(do *dynamodb.Options) {
		if o.Endpoint != "" {
			do.BaseEndpoint = aws.String(o.Endpoint)
		}
		useResponseCRC32(do)
	}}, extra...)...), nil
}

// Table returns the name of the driver's table.
func (c *Driver) Table() string { return c.table }

// Client returns the DynamoDB client the driver was built with, or
// nil when it runs over a test double.
func (c *Driver) Client() *dynamodb.Client {
	client, _ := c.api.(*dynamodb.Client)
	return client
}

// validateEndpoint accepts an http or https URL with a host and no
// credentials. Messages never repeat a URL that carries credentials.
func validateEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	switch {
	case err != nil:
		return fmt.Errorf("dynamocoord: %w: the endpoint is not a URL", coord.ErrInvalid)
	case u.User != nil:
		return fmt.Errorf("dynamocoord: %w: the endpoint must not contain credentials; use the AWS credential chain (environment or profile)", coord.ErrInvalid)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("dynamocoord: %w: endpoint %q: the scheme must be http or https", coord.ErrInvalid, endpoint)
	case u.Host == "":
		return fmt.Errorf("dynamocoord: %w: endpoint %q has no host", coord.ErrInvalid, endpoint)
	}
	return nil
}

// validateTable checks DynamoDB's table name rules: 3 to 255 characters
// of a-z, A-Z, 0-9, '_', '-' and '.'.
func validateTable(table string) error {
	if len(table) < 3 || len(table) > 255 {
		return &coord.InvalidError{What: "table", Value: table, Reason: "a table name is 3 to 255 characters long"}
	}
	for _, r := range table {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
		if !ok {
			return &coord.InvalidError{What: "table", Value: table, Reason: "a table name has only letters, digits, '_', '-' and '.'"}
		}
	}
	return nil
}
