package memstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/fencedstore/fence/objstore/driver"
)

// Op names a Backend method, as seen by a hook.
type Op string

// The operations a hook can see.
const (
	OpGet    Op = "get"
	OpHead   Op = "head"
	OpPut    Op = "put"
	OpDelete Op = "delete"
	OpList   Op = "list"
)

// Call describes one call, as seen by a hook. For OpList, Key is the
// prefix. Opts is set only for OpPut.
type Call struct {
	Op   Op
	Key  string
	Opts driver.PutOptions
}

// Fault tells the backend how to misbehave on one call. The zero value
// runs the call normally. The fields apply in this order: Delay, Pause,
// Err (which stops there), the call itself, then DropReply or ErrAfter
// (DropReply wins when both are set).
type Fault struct {
	// Delay waits this long before the call. If ctx ends first the call
	// returns ctx's error without being applied.
	Delay time.Duration
	// Pause blocks the call until the channel is closed. If ctx ends
	// first the call returns ctx's error without being applied.
	Pause <-chan struct{}
	// Err fails the call without applying it.
	Err error
	// DropReply applies the call, then returns an error matching
	// ErrReplyDropped instead of its reply: the caller cannot tell whether
	// the call was applied.
	DropReply bool
	// ErrAfter applies the call, then returns this error instead of its
	// reply (for example a 503 after the write landed).
	ErrAfter error
}

// ErrReplyDropped is returned by a call whose Fault had DropReply: the
// call was applied but its reply was lost. It matches none of the objstore
// error classes, so a Store treats it as ambiguous.
var ErrReplyDropped = errors.New("memstore: reply dropped")

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
	return fmt.Sprintf("memstore: HTTP %d %s", e.Status, code)
}

// Is maps the status to an objstore error class.
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

// Hook decides the Fault of each call. It is called concurrently.
type Hook func(ctx context.Context, c Call) Fault

// Once returns a hook that applies f to the first call matching op and
// key (an empty key matches any key) and runs every other call normally.
func Once(op Op, key string, f Fault) Hook {
	var once sync.Once
	return func(_ context.Context, c Call) Fault {
		if c.Op != op || (key != "" && c.Key != key) {
			return Fault{}
		}
		hit := false
		once.Do(func() { hit = true })
		if !hit {
			return Fault{}
		}
		return f
	}
}

// FailNext returns a hook that fails the next call matching op and key
// (an empty key matches any key) with err, without applying it.
func FailNext(op Op, key string, err error) Hook {
	return Once(op, key, Fault{Err: err})
}

// before runs the part of f that comes before the call. A non-nil error
// means the call must not be applied.
func (f Fault) before(ctx context.Context) error {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	if f.Pause != nil {
		select {
		case <-f.Pause:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return f.Err
}

// after returns the error that replaces the reply of an applied call, or
// nil.
func (f Fault) after() error {
	if f.DropReply {
		return ErrReplyDropped
	}
	return f.ErrAfter
}
