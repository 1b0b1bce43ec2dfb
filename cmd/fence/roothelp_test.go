package main

import (
	"strings"
	"testing"
)

// fence --help lists the URL form of every store scheme, and shows the
// cloud ones in use: a newcomer on GCS or Azure should not need the docs
// to write the first command.
func TestRootHelpNamesEveryStore(t *testing.T) {
	r := newCLI(t).want(0, "", "--help")
	_, urls, ok := strings.Cut(r.stdout, "\nStore URLs (--store):\n")
	if !ok {
		t.Fatalf("fence --help has no 'Store URLs (--store):' list:\n%s", r.stdout)
	}
	urls, _, _ = strings.Cut(urls, "\nCoordinator URLs")
	for _, scheme := range []string{"file://", "mem://", "s3://", "minio://", "gs://", "azblob://"} {
		if !strings.Contains(urls, "\n  "+scheme) && !strings.HasPrefix(urls, "  "+scheme) {
			t.Errorf("fence --help's store URLs do not list %s:\n%s", scheme, urls)
		}
	}
	_, examples, ok := strings.Cut(r.stdout, "\nExamples:\n")
	if !ok {
		t.Fatalf("fence --help has no 'Examples:':\n%s", r.stdout)
	}
	examples, _, _ = strings.Cut(examples, "\n\n")
	for _, store := range []string{"--store gs://", "--store 'gs://", "--store azblob://", "--store 'azblob://"} {
		if !strings.Contains(examples, store) {
			t.Errorf("fence --help's examples have no %q:\n%s", store, examples)
		}
	}
}
