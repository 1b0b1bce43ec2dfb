package s3gw

// SetListChunk makes listings read n committed keys at a time until the
// returned function restores the default, so that a test crosses the
// chunks' boundaries with few keys.
func SetListChunk(n int) (restore func()) {
	old := listChunk
	listChunk = n
	return func() { listChunk = old }
}
