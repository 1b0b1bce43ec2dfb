package gcsstore

import (
	"fmt"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

// MaxObjectNameLen is GCS's limit on an object name, in bytes of UTF-8.
const MaxObjectNameLen = 1024

var _ driver.KeyChecker = (*Backend)(nil)

// CheckKey refuses a key whose object name, the backend's prefix
// included, is longer than GCS's limit of 1024 bytes, so that the Store
// refuses such a commit before it uploads anything.
func (b *Backend) CheckKey(key string) error {
	if n := len(b.prefix) + len(key); n > MaxObjectNameLen {
		return &rules.InvalidError{What: "key", Value: key, Reason: fmt.Sprintf(
			"%d bytes as an object name with the store's prefix %q, over GCS's limit of %d", n, b.prefix, MaxObjectNameLen)}
	}
	return nil
}

// Conditions names GCS's generation preconditions, for the capability
// probe's messages (driver.ConditionNamer).
func (b *Backend) Conditions() driver.Conditions {
	return driver.Conditions{
		Create: "ifGenerationMatch=0",
		Update: "ifGenerationMatch (the generation)",
		Needed: "a GCS server that honours generation preconditions (ifGenerationMatch=0, and ifGenerationMatch with the object's generation)",
	}
}
