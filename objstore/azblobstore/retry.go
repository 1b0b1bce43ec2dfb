package azblobstore

import (
	"net/http"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/fencedstore/fence/objstore/driver/netfail"
)

// retryStatus are the answers the SDK retries by default.
var retryStatus = []int{
	http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
	http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout,
}

// retryOptions are the SDK's default retries, except that an unreachable
// endpoint (driver.ErrUnreachable) fails at the first attempt: the Store
// does not retry it either.
func retryOptions() policy.RetryOptions {
	return policy.RetryOptions{ShouldRetry: shouldRetry}
}

func shouldRetry(resp *http.Response, err error) bool {
	if err != nil {
		return !netfail.IsUnreachable(err)
	}
	return slices.Contains(retryStatus, resp.StatusCode)
}

// refuse is a pipeline policy that fails every request, unsent, with err.
type refuse struct{ err error }

func (r refuse) Do(*policy.Request) (*http.Response, error) { return nil, r.err }
