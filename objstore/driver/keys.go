package driver

// KeyChecker is implemented by a backend that cannot store every key
// rules.ValidateKey accepts. The Store calls CheckKey with the object key
// of every version it is about to upload, before it uploads any, and
// refuses the commit with the error, wrapped to name the caller's key.
type KeyChecker interface {
	// CheckKey returns nil if the backend can store an object at key,
	// and otherwise an error matching rules.ErrInvalid that names the
	// limit, counted the way the backend counts it (for example with
	// its key prefix included).
	CheckKey(key string) error
}
