package s3store

import "github.com/fencedstore/fence/objstore/internal/s3err"

// CheckKey refuses a key whose object key, the backend's prefix
// included, is longer than S3's limit of 1024 bytes.
func (b *Backend) CheckKey(key string) error { return s3err.CheckKey(b.prefix, key) }
