package main

import (
	"context"
	"fmt"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
)

// openBackend opens the bucket through aws-sdk-go-v2 ("s3") or minio-go
// ("minio").
func openBackend(ctx context.Context, kind, endpoint, bucket string) (driver.Backend, error) {
	switch kind {
	case "s3":
		return s3store.Open(ctx, bucket, "", &s3store.Options{Endpoint: endpoint, Region: "us-east-1", PathStyle: true})
	case "minio":
		return miniostore.Open(endpoint, bucket, "", &miniostore.Options{Region: "us-east-1"})
	}
	return nil, fmt.Errorf("unknown backend %q", kind)
}

// openDriver opens the driver of the writer's lease coordinator: DynamoDB
// through its endpoint, or lease records in the bucket through b, the
// writer's own backend without fault points (a lease write is not a
// commit).
func openDriver(ctx context.Context, cfg spec.Writer, b driver.Backend, clk coord.Clock) (coord.Driver, error) {
	switch cfg.Coord {
	case spec.CoordDynamo, "":
		return dynamocoord.Open(ctx, cfg.Table, &dynamocoord.OpenOptions{Endpoint: cfg.Dynamo, Region: "us-east-1", Clock: clk})
	case spec.CoordBucket:
		return bucketlease.New(b, &bucketlease.Options{Clock: clk}), nil
	}
	return nil, fmt.Errorf("unknown coordinator %q", cfg.Coord)
}
