package registry

import (
	"context"
	"fmt"

	"github.com/fencedstore/fence/objstore/driver"
)

// Opener opens the stores of a scheme whose URL form config parses
// itself: s3://, registered by objstore/s3store, and minio://, by
// objstore/miniostore.
type Opener struct {
	// Open opens the backend. It sends no request.
	Open func(ctx context.Context, loc Location) (driver.Backend, error)
	// Bucket returns the URL's bucket (without its prefix) for Init and
	// Doctor. It sends no request.
	Bucket func(ctx context.Context, loc Location) (Bucket, error)
	// Reached reports whether err, from the bucket's BucketExists, came
	// with an answer from the server rather than from no connection, a
	// timeout or missing credentials. nil means never.
	Reached func(err error) bool
	// ErrorCode returns the service's error code in err ("" for none),
	// with which config recognises a refused credential. nil means none.
	ErrorCode func(err error) string
}

// openerSchemes are the schemes RegisterOpener takes.
var openerSchemes = map[string]bool{"s3": true, "minio": true}

// RegisterOpener registers how to open the stores of scheme name, "s3" or
// "minio". It panics for another name, a second registration or a nil
// Open or Bucket: call it from an init function.
func RegisterOpener(name string, o Opener) {
	mu.Lock()
	defer mu.Unlock()
	_, dup := openers[name]
	switch {
	case !openerSchemes[name]:
		panic(fmt.Sprintf("config: RegisterOpener: %q is not a URL form config parses (s3, minio); use Register", name))
	case dup:
		panic(fmt.Sprintf("config: RegisterOpener: scheme %q registered twice", name))
	case o.Open == nil || o.Bucket == nil:
		panic(fmt.Sprintf("config: RegisterOpener(%q): Open and Bucket are required", name))
	}
	openers[name] = o
}

// LookupOpener returns the Opener registered for scheme name.
func LookupOpener(name string) (Opener, bool) {
	mu.RLock()
	defer mu.RUnlock()
	o, ok := openers[name]
	return o, ok
}

// ErrorCode returns the service's error code in err, asking each
// registered ErrorCode function in turn; "" when none finds one.
func ErrorCode(err error) string {
	mu.RLock()
	defer mu.RUnlock()
	var fns []func(error) string
	for _, o := range openers {
		fns = append(fns, o.ErrorCode)
	}
	for _, c := range coordinators {
		fns = append(fns, c.ErrorCode)
	}
	for _, fn := range fns {
		if fn == nil {
			continue
		}
		if code := fn(err); code != "" {
			return code
		}
	}
	return ""
}
