package driver

import "fmt"

// ErrNoBucket: the bucket (an Azure container, a file store's directory)
// does not exist. Matches ErrPermanent, and not ErrNotFound, which says
// that a key or a domain does not exist: the Store reports a missing
// bucket as such and never as an empty domain. Its *NoBucketError names
// the bucket.
var ErrNoBucket error = permanent("objstore: bucket does not exist")

// NoBucketError reports a request to a bucket that does not exist.
type NoBucketError struct {
	Kind     string // what the store calls it: "bucket", "container", "directory"
	Name     string
	Endpoint string // where it was looked for, without credentials; "" for none
	Err      error  // the store's answer
}

func (e *NoBucketError) Error() string {
	kind := e.Kind
	if kind == "" {
		kind = "bucket"
	}
	s := fmt.Sprintf("%s %q does not exist", kind, e.Name)
	if e.Endpoint != "" {
		s += " at " + e.Endpoint
	}
	s += " ('fence init' creates it)"
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is makes errors.Is(err, ErrNoBucket) and errors.Is(err, ErrPermanent)
// true.
func (e *NoBucketError) Is(target error) bool { return target == ErrNoBucket || target == ErrPermanent }
func (e *NoBucketError) Unwrap() error        { return e.Err }
