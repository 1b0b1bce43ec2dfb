package main

import (
	"testing"

	"github.com/fencedstore/fence/config"
)

// The fence command links every backend (backends.go): each of fence's
// schemes parses and opens.
func TestCommandLinksEveryScheme(t *testing.T) {
	for _, scheme := range []string{"file", "mem", "s3", "minio", "gs", "azblob", "dynamodb"} {
		if !config.KnownScheme(scheme) {
			t.Errorf("the fence command does not link the %s:// backend", scheme)
		}
	}
}
