package faulty

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/fencedstore/fence/objstore/driver"
)

// ErrReplyDropped is returned by a call whose Fault had DropReply: the
// call was applied but its reply was lost. It matches none of the driver
// error classes, so a Store treats it as ambiguous.
var ErrReplyDropped = errors.New("faulty: reply dropped")

// HTTPError is an error shaped like an S3 error response, for injecting
// into Fault.Err or Fault.ErrAfter. Status 404 matches
// driver.ErrNotFound, 409 matches driver.ErrConflict and 412 matches
// driver.ErrPreconditionFailed; any other status (500, 503, ...) matches
// no class, so it is ambiguous to a Store.
type HTTPError struct {
	Status int
	Code   string // S3 error code, such as "SlowDown"; optional
}

func (e *HTTPError) Error() string {
	code := e.Code
	if code == "" {
		code = http.StatusText(e.Status)
	}
	return fmt.Sprintf("faulty: HTTP %d %s", e.Status, code)
}

// Is maps the status to a driver error class.
func (e *HTTPError) Is(target error) bool {
	switch e.Status {
	case http.StatusNotFound:
		return target == driver.ErrNotFound
	case http.StatusConflict:
		return target == driver.ErrConflict
	case http.StatusPreconditionFailed:
		return target == driver.ErrPreconditionFailed
	}
	return false
}
