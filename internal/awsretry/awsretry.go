// Package awsretry keeps the AWS SDK from retrying a request that no
// retry can fix (driver.ErrUnreachable: connection refused, an unknown
// host, plain HTTP against TLS), for fence's S3 and DynamoDB clients.
package awsretry

import (
	"errors"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/fencedstore/fence/objstore/driver/netfail"
)

// Apply wraps cfg's retryer (the SDK's standard one when cfg has none)
// so that it gives up at once on an unreachable endpoint; every other
// error is retried as before.
func Apply(cfg *aws.Config) {
	next := cfg.Retryer
	if next == nil {
		next = func() aws.Retryer { return retry.NewStandard() }
	}
	cfg.Retryer = func() aws.Retryer { return retryer{next()} }
}

type retryer struct{ aws.Retryer }

// IsErrorRetryable refuses to retry an unreachable endpoint, and a 400
// answer without an AWS error code (a server that is not the service,
// such as one that expects TLS, answers so; the SDK would retry it when
// the server closes the connection before the SDK has read the body).
func (r retryer) IsErrorRetryable(err error) bool {
	if netfail.IsUnreachable(err) {
		return false
	}
	var re *awshttp.ResponseError
	var ae smithy.APIError
	if errors.As(err, &re) && re.HTTPStatusCode() == http.StatusBadRequest && (!errors.As(err, &ae) || ae.ErrorCode() == "") {
		return false
	}
	return r.Retryer.IsErrorRetryable(err)
}
