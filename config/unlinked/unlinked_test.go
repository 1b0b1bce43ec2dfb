package unlinked_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/config"
)

// This test binary imports config alone: no backend registered a
// scheme, so each of fence's other schemes is refused with the import
// line that would link it.
func TestUnlinkedSchemesNameTheirImport(t *testing.T) {
	for _, tt := range []struct{ url, pkg string }{
		{"s3://reports/monthly?region=eu-west-1", "github.com/fencedstore/fence/objstore/s3store"},
		{"minio://reports?endpoint=http://127.0.0.1:9000", "github.com/fencedstore/fence/objstore/miniostore"},
		{"gs://reports", "github.com/fencedstore/fence/objstore/gcsstore"},
		{"azblob://reports?account=acct1", "github.com/fencedstore/fence/objstore/azblobstore"},
		{"dynamodb://fence-leases", "github.com/fencedstore/fence/coord/dynamocoord"},
	} {
		scheme, _, _ := strings.Cut(tt.url, "://")
		want := `add import _ "` + tt.pkg + `"`
		check := func(what string, err error) {
			t.Helper()
			if !errors.Is(err, config.ErrBadURL) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), scheme+"://") {
				t.Errorf("%s %s: %v; want ErrBadURL naming %s:// and %s", what, tt.url, err, scheme, want)
			}
		}
		_, err := config.ParseURL(tt.url)
		check("ParseURL", err)
		_, err = config.OpenCoordinator(t.Context(), tt.url, nil, nil)
		check("OpenCoordinator", err)
		_, err = config.Init(t.Context(), "mem://", tt.url)
		check("Init", err)
		_, err = config.Doctor(t.Context(), "mem://", tt.url, nil)
		check("Doctor", err)
		if scheme == "dynamodb" {
			continue
		}
		_, err = config.Open(t.Context(), tt.url, nil)
		check("Open", err)
		_, err = config.OpenBackend(t.Context(), tt.url)
		check("OpenBackend", err)
		if config.KnownScheme(scheme) {
			t.Errorf("KnownScheme(%q) = true in a program that does not link it", scheme)
		}
	}
}

// file:// and mem:// are built in: a program that imports config alone
// opens them.
func TestBuiltinSchemesNeedNoImport(t *testing.T) {
	for _, url := range []string{"mem://", "file://" + t.TempDir()} {
		o, err := config.Open(t.Context(), url, nil)
		if err != nil {
			t.Errorf("Open(%q): %v", url, err)
			continue
		}
		if err := o.Close(); err != nil {
			t.Errorf("Close(%q): %v", url, err)
		}
	}
	// Lease records in another built-in store need no import either.
	o, err := config.Open(t.Context(), "mem://", &config.OpenOptions{Coord: "mem://leases"})
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
}
