package s3store

import (
	"context"
	"errors"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fencedstore/fence/config/registry"
	"github.com/fencedstore/fence/objstore/driver"
)

// s3://BUCKET[/PREFIX][?endpoint=URL&region=R&path_style=true&sse=S&kms_key_id=K]:
// an S3 bucket, with credentials from the standard AWS chain. Package
// config parses these URLs; a program that imports this package
// (import _ "github.com/fencedstore/fence/objstore/s3store") has it open
// them.
func init() {
	registry.RegisterOpener("s3", registry.Opener{
		Open: func(ctx context.Context, loc registry.Location) (driver.Backend, error) {
			return Open(ctx, loc.Bucket, loc.Prefix, &Options{
				Endpoint: loc.Endpoint, Region: loc.Region, PathStyle: loc.PathStyle, SSE: loc.SSE, KMSKeyID: loc.KMSKeyID,
			})
		},
		Bucket: func(ctx context.Context, loc registry.Location) (registry.Bucket, error) {
			// Without the prefix: the bucket is what Init creates.
			return Open(ctx, loc.Bucket, "", &Options{Endpoint: loc.Endpoint, Region: loc.Region, PathStyle: loc.PathStyle})
		},
		Reached:   reached,
		ErrorCode: errorCode,
	})
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
	return errors.As(err, &re) && re.HTTPStatusCode() != 0 || errors.As(err, &api)
}

// errorCode returns the S3 error code in err, "" when it has none.
func errorCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}
