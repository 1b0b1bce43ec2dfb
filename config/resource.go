package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/objstore/filestore"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
)

// resource is the one thing a URL needs to exist before fence can use
// it: a directory, a bucket or a table. Init creates it; Doctor checks it.
type resource struct {
	kind     string // "directory", "memory store", "bucket", "container", "table"
	name     string // the path, bucket or table
	location string // where, without credentials
	store    string // the store's location, with its prefix (buckets)
	// exists reports whether it exists. A missing one is (false, nil).
	exists func(ctx context.Context) (bool, error)
	// create creates it; nil when there is nothing to create.
	create func(ctx context.Context) error
	// reached, when set, is reached for the errors of a registered
	// scheme's exists.
	reached func(error) bool
	// dynamo is the table's driver (tables only).
	dynamo *dynamocoord.Driver
}

// key identifies the resource, so that a store and a coordinator in one
// bucket count once.
func (r *resource) key() string { return r.kind + "\x00" + r.location }

// newResource describes what loc needs. It sends no request.
func newResource(ctx context.Context, loc Location) (*resource, error) {
	switch loc.Scheme {
	case "file":
		abs, err := filepath.Abs(loc.Path)
		if err != nil {
			return nil, fmt.Errorf("config: directory %s: %w", loc.Path, err)
		}
		return &resource{
			kind: "directory", name: loc.Path, location: "file://" + abs,
			exists: func(context.Context) (bool, error) {
				fi, err := os.Stat(abs)
				switch {
				case errors.Is(err, os.ErrNotExist):
					return false, nil
				case err != nil:
					return false, err
				case !fi.IsDir():
					return false, fmt.Errorf("config: %s exists and is not a directory", abs)
				}
				return true, nil
			},
			create: func(context.Context) error {
				_, err := filestore.Open(abs) // creates the directory and its housekeeping folders
				return err
			},
		}, nil
	case "mem":
		return &resource{
			kind: "memory store", name: loc.Path, location: loc.String() + " (in this process only)",
			exists: func(context.Context) (bool, error) { return true, nil },
		}, nil
	case "s3":
		// Without the prefix: the bucket is the resource.
		b, err := s3store.Open(ctx, loc.Bucket, "", &s3store.Options{Endpoint: loc.Endpoint, Region: loc.Region, PathStyle: loc.PathStyle})
		if err != nil {
			return nil, err
		}
		return &resource{kind: "bucket", name: loc.Bucket, location: b.Location(), store: withPrefix(b.Location(), loc),
			exists: b.BucketExists, create: b.EnsureBucket}, nil
	case "minio":
		b, err := miniostore.Open(loc.Endpoint, loc.Bucket, "", &miniostore.Options{Region: loc.Region})
		if err != nil {
			return nil, err
		}
		return &resource{kind: "bucket", name: loc.Bucket, location: b.Location(), store: withPrefix(b.Location(), loc),
			exists: b.BucketExists, create: b.EnsureBucket}, nil
	case "dynamodb":
		client, err := dynamocoord.NewClient(ctx, &dynamocoord.OpenOptions{Endpoint: loc.Endpoint, Region: loc.Region})
		if err != nil {
			return nil, err
		}
		c, err := dynamocoord.New(client, loc.Table, nil)
		if err != nil {
			return nil, err
		}
		return &resource{
			kind: "table", name: loc.Table, location: tableLocation(client, loc.Table), dynamo: c,
			exists: func(ctx context.Context) (bool, error) {
				err := c.CheckTable(ctx)
				if errors.Is(err, dynamocoord.ErrTableNotFound) {
					return false, nil
				}
				return err == nil, err
			},
			create: func(ctx context.Context) error { return dynamocoord.CreateTable(ctx, client, loc.Table) },
		}, nil
	}
	if s, ok := lookup(loc.Scheme); ok && s.Bucket != nil {
		b, err := s.Bucket(ctx, loc)
		if err != nil {
			return nil, err
		}
		return &resource{kind: kindOf(loc.Scheme), name: loc.Bucket, location: b.Location(), store: withPrefix(b.Location(), loc),
			exists: b.BucketExists, create: b.EnsureBucket, reached: s.Reached}, nil
	}
	return nil, fmt.Errorf("config: scheme %q has no resource", loc.Scheme)
}

// withPrefix inserts loc's prefix into a bucket's location
// ("s3://bucket@endpoint" becomes "s3://bucket/prefix@endpoint").
func withPrefix(bucketLocation string, loc Location) string {
	head := loc.Scheme + "://" + loc.Bucket
	if loc.Prefix == "" || !strings.HasPrefix(bucketLocation, head) {
		return bucketLocation
	}
	return head + "/" + loc.Prefix + bucketLocation[len(head):]
}

// tableLocation names a table and the endpoint its client talks to.
func tableLocation(client *dynamodb.Client, table string) string {
	o := client.Options()
	endpoint := "https://dynamodb." + o.Region + ".amazonaws.com"
	if o.BaseEndpoint != nil && *o.BaseEndpoint != "" {
		endpoint = Redact(*o.BaseEndpoint)
	}
	return "dynamodb://" + table + "@" + endpoint
}

// reached reports whether err came with an answer from the server (an
// HTTP error status or an API error), as opposed to no connection, a
// timeout or missing credentials.
func reached(err error) bool {
	var send *smithyhttp.RequestSendError
	if errors.As(err, &send) {
		return false
	}
	var re *awshttp.ResponseError // status 0 when no reply came
	var api smithy.APIError
	var mr minio.ErrorResponse
	return errors.As(err, &re) && re.HTTPStatusCode() != 0 || errors.As(err, &api) ||
		errors.As(err, &mr) && mr.StatusCode != 0 ||
		errors.Is(err, dynamocoord.ErrTableNotFound) || errors.Is(err, dynamocoord.ErrWrongSchema)
}
