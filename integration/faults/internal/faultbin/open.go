package main

import (
	"context"
	"fmt"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
)

// openBackend opens the bucket through aws-sdk-go-v2 ("s3") or minio-go
// ("minio").
func openBackend(ctx context.Context, kind, endpoint, bucket string) (objstore.Backend, error) {
	switch kind {
	case "s3":
		return s3store.Open(ctx, bucket, "", &s3store.Options{Endpoint: endpoint, Region: "us-east-1", PathStyle: true})
	case "minio":
		return miniostore.Open(endpoint, bucket, "", &miniostore.Options{Region: "us-east-1"})
	}
	return nil, fmt.Errorf("unknown backend %q", kind)
}
