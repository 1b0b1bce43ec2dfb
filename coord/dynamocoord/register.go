package dynamocoord

import (
	"context"
	"errors"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fencedstore/fence/config/registry"
	"github.com/fencedstore/fence/coord"
)

// dynamodb://TABLE[?endpoint=URL&region=R]: leases and tokens from a
// DynamoDB table. Package config parses these URLs; a program that
// imports this package
// (import _ "github.com/fencedstore/fence/coord/dynamocoord") has it open
// them, and Init create the table.
func init() {
	registry.RegisterCoordinator("dynamodb", registry.Coordinator{
		Open: func(ctx context.Context, loc registry.Location) (coord.Driver, error) {
			return Open(ctx, loc.Table, &OpenOptions{Endpoint: loc.Endpoint, Region: loc.Region})
		},
		Table: func(ctx context.Context, loc registry.Location) (registry.Table, error) {
			client, err := NewClient(ctx, &OpenOptions{Endpoint: loc.Endpoint, Region: loc.Region})
			if err != nil {
				return nil, err
			}
			d, err := New(client, loc.Table, nil)
			if err != nil {
				return nil, err
			}
			return &table{client: client, name: loc.Table, d: d}, nil
		},
		Reached:   reached,
		ErrorCode: errorCode,
	})
}

// table is the table that config's Init creates and Doctor checks.
type table struct {
	client *dynamodb.Client
	name   string
	d      *Driver
}

// Location names the table and the endpoint its client talks to.
func (t *table) Location() string {
	o := t.client.Options()
	endpoint := "https://dynamodb." + o.Region + ".amazonaws.com"
	if o.BaseEndpoint != nil && *o.BaseEndpoint != "" {
		endpoint = registry.Redact(*o.BaseEndpoint)
	}
	return "dynamodb://" + t.name + "@" + endpoint
}

func (t *table) Exists(ctx context.Context) (bool, error) {
	err := t.d.CheckTable(ctx)
	if errors.Is(err, ErrTableNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (t *table) Create(ctx context.Context) error { return CreateTable(ctx, t.client, t.name) }
func (t *table) Check(ctx context.Context) error  { return t.d.CheckTable(ctx) }
func (t *table) Driver() coord.Driver             { return t.d }

// reached reports whether err came with an answer from DynamoDB (an HTTP
// error status, an API error, a missing table or one with the wrong
// schema), as opposed to no connection, a timeout or missing
// credentials.
func reached(err error) bool {
	var send *smithyhttp.RequestSendError
	if errors.As(err, &send) {
		return false
	}
	var re *awshttp.ResponseError // status 0 when no reply came
	var api smithy.APIError
	return errors.As(err, &re) && re.HTTPStatusCode() != 0 || errors.As(err, &api) ||
		errors.Is(err, ErrTableNotFound) || errors.Is(err, ErrWrongSchema)
}

// errorCode returns the DynamoDB error code in err, "" when it has none.
func errorCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}
