package config

import (
	"context"
	"fmt"
)

// Resource is one thing that Init made sure exists.
type Resource struct {
	// Kind is "directory", "memory store", "bucket", "container" or
	// "table".
	Kind string `json:"kind"`
	// Name is the directory as given, the bucket or the table.
	Name string `json:"name"`
	// Location says where, without credentials, for example
	// "s3://reports@http://127.0.0.1:9000" or
	// "dynamodb://fence-leases@https://dynamodb.eu-west-1.amazonaws.com".
	Location string `json:"location"`
	// Created is true when Init created it, false when it already
	// existed.
	Created bool `json:"created"`
}

// Init creates what the store URL and the coordinator URL need, when it
// is missing: the directory of a file:// URL, the bucket of an s3:// or
// minio:// URL (in the configured region), the container of an
// azblob:// URL (private), the table of a dynamodb://
// URL (dynamocoord.CreateTable: on-demand billing, no TTL, and it waits
// until the table is ACTIVE). An empty coordinator URL needs nothing of
// its own. Init is idempotent: what exists is left as it is, and
// reported with Created false. An existing table with the wrong key
// schema or with TTL enabled is an error.
//
// Init returns what it handled, in order (store first), also when it
// fails part way. Errors name URLs without credentials.
func Init(ctx context.Context, storeURL, coordURL string) ([]Resource, error) {
	locs, err := parsePair(storeURL, coordURL)
	if err != nil {
		return nil, err
	}
	var done []Resource
	seen := map[string]bool{}
	for _, loc := range locs {
		r, err := newResource(ctx, loc)
		if err != nil {
			return done, fmt.Errorf("config: init %q: %w", loc.String(), err)
		}
		if seen[r.key()] {
			continue
		}
		seen[r.key()] = true
		exists, err := r.exists(ctx)
		if err != nil {
			return done, fmt.Errorf("config: init: %s %s: %w", r.kind, r.location, err)
		}
		if !exists && r.create != nil {
			if err := r.create(ctx); err != nil {
				return done, fmt.Errorf("config: init: create %s %s: %w", r.kind, r.location, err)
			}
		}
		done = append(done, Resource{Kind: r.kind, Name: r.name, Location: r.location, Created: !exists})
	}
	return done, nil
}

// parsePair parses a store URL and an optional coordinator URL.
func parsePair(storeURL, coordURL string) ([]Location, error) {
	store, err := parseStoreURL(storeURL)
	if err != nil {
		return nil, err
	}
	locs := []Location{store}
	if coordURL != "" {
		c, err := ParseURL(coordURL)
		if err != nil {
			return nil, err
		}
		locs = append(locs, c)
	}
	return locs, nil
}
