package s3err

import (
	"fmt"

	"github.com/fencedstore/fence/rules"
)

// MaxObjectKeyLen is S3's limit on an object key, in bytes.
const MaxObjectKeyLen = 1024

// CheckKey returns a *rules.InvalidError when prefix + key, the object
// key a backend with that prefix writes, is longer than MaxObjectKeyLen.
func CheckKey(prefix, key string) error {
	if n := len(prefix) + len(key); n > MaxObjectKeyLen {
		return &rules.InvalidError{What: "key", Value: key, Reason: fmt.Sprintf(
			"%d bytes as an object key with the store's prefix %q, over S3's limit of %d", n, prefix, MaxObjectKeyLen)}
	}
	return nil
}
