package miniostore

import (
	"context"
	"errors"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/config/registry"
	"github.com/fencedstore/fence/objstore/driver"
)

// minio://BUCKET[/PREFIX]?endpoint=URL[&region=R&sse=S&kms_key_id=K]: a
// bucket through minio-go. Package config parses these URLs; a program
// that imports this package
// (import _ "github.com/fencedstore/fence/objstore/miniostore") has it
// open them.
func init() {
	registry.RegisterOpener("minio", registry.Opener{
		Open: func(ctx context.Context, loc registry.Location) (driver.Backend, error) {
			// An https endpoint makes the connection use TLS.
			return Open(loc.Endpoint, loc.Bucket, loc.Prefix, &Options{Region: loc.Region, SSE: loc.SSE, KMSKeyID: loc.KMSKeyID})
		},
		Bucket: func(ctx context.Context, loc registry.Location) (registry.Bucket, error) {
			// Without the prefix: the bucket is what Init creates.
			return Open(loc.Endpoint, loc.Bucket, "", &Options{Region: loc.Region})
		},
		Reached: func(err error) bool {
			var mr minio.ErrorResponse
			return errors.As(err, &mr) && mr.StatusCode != 0
		},
		ErrorCode: func(err error) string {
			var mr minio.ErrorResponse
			if errors.As(err, &mr) {
				return mr.Code
			}
			return ""
		},
	})
}
