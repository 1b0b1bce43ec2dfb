package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/integration/faults/internal/hist"
	"github.com/fencedstore/fence/integration/faults/internal/spec"
	"github.com/fencedstore/fence/objstore/azblobstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/gcsstore"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
)

// proc is what every faultbin process but the proxy opens first: the
// history file it appends to, a context that SIGTERM or an interrupt
// cancels, and the bucket's backend.
type proc struct {
	w      *hist.Writer
	stop   context.Context
	b      driver.Backend
	cancel context.CancelFunc
}

// start opens a process's history, its stop context and its backend
// (see openBackend). The caller closes it.
func start(history, backend, endpoint, bucket string) (*proc, error) {
	w, err := hist.Create(history)
	if err != nil {
		return nil, err
	}
	stop, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	b, err := openBackend(stop, backend, endpoint, bucket)
	if err != nil {
		cancel()
		w.Close()
		return nil, err
	}
	return &proc{w: w, stop: stop, b: b, cancel: cancel}, nil
}

// close stops listening for signals and closes the history.
func (p *proc) close() {
	p.cancel()
	p.w.Close()
}

// openBackend opens the bucket (a container on Azure) at endpoint through
// aws-sdk-go-v2 (spec.BackendS3), minio-go (spec.BackendMinio),
// cloud.google.com/go/storage (spec.BackendGCS) or azure-sdk-for-go
// (spec.BackendAzure, with the shared key of AZURE_STORAGE_ACCOUNT and
// AZURE_STORAGE_KEY, which the suite sets), each as fence's own backend
// for it opens it for a user.
func openBackend(ctx context.Context, kind, endpoint, bucket string) (driver.Backend, error) {
	switch kind {
	case spec.BackendS3:
		return s3store.Open(ctx, bucket, "", &s3store.Options{Endpoint: endpoint, Region: "us-east-1", PathStyle: true})
	case spec.BackendMinio:
		return miniostore.Open(endpoint, bucket, "", &miniostore.Options{Region: "us-east-1"})
	case spec.BackendGCS:
		return gcsstore.Open(ctx, bucket, "", &gcsstore.Options{Endpoint: endpoint})
	case spec.BackendAzure:
		return azblobstore.Open(ctx, bucket, "", &azblobstore.Options{Endpoint: endpoint})
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
