package format

// CorruptError names an object of the format that cannot be trusted: a
// manifest, or a shard one names. objstore reports it as a
// *objstore.CorruptManifestError.
type CorruptError struct {
	Key    string // the object's key
	Reason string
	Err    error // the decoding error, if any
}

func (e *CorruptError) Error() string {
	s := "corrupt " + e.Key + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *CorruptError) Unwrap() error { return e.Err }
