package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fencedstore/fence/config/registry"
	"github.com/fencedstore/fence/objstore/filestore"
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
	// reached reports whether an error of exists, or of the table's
	// driver, came with an answer from the server; nil means never.
	reached func(error) bool
	// table is the coordinator's table (tables only).
	table registry.Table
}

// answered reports whether err, from exists or the table's driver, came
// with an answer from the server (an HTTP error status or an API error),
// as opposed to no connection, a timeout or missing credentials.
func (r *resource) answered(err error) bool { return r.reached != nil && r.reached(err) }

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
	case "dynamodb":
		c, ok := registry.LookupCoordinator(loc.Scheme)
		if !ok {
			return nil, errNoBackend(loc.Scheme)
		}
		t, err := c.Table(ctx, loc)
		if err != nil {
			return nil, err
		}
		return &resource{kind: "table", name: loc.Table, location: t.Location(), table: t,
			exists: t.Exists, create: t.Create, reached: c.Reached}, nil
	}
	o, ok := openerOf(loc.Scheme)
	if !ok {
		return nil, errNoBackend(loc.Scheme)
	}
	if o.Bucket == nil {
		return nil, fmt.Errorf("config: scheme %q has no resource", loc.Scheme)
	}
	b, err := o.Bucket(ctx, loc)
	if err != nil {
		return nil, err
	}
	return &resource{kind: kindOf(loc.Scheme), name: loc.Bucket, location: b.Location(), store: withPrefix(b.Location(), loc),
		exists: b.BucketExists, create: b.EnsureBucket, reached: o.Reached}, nil
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
