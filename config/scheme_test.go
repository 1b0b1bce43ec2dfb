package config

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
)

// regtest is a scheme that only this test registers: the registry's
// mechanism, apart from any real backend.
func init() {
	Register("regtest", Scheme{
		Form:   "regtest://BUCKET[/PREFIX][?endpoint=URL]",
		Params: []string{"endpoint"},
		CheckBucket: func(name string) string {
			if !strings.HasPrefix(name, "rb") {
				return "bucket " + name + ": a regtest bucket starts with rb"
			}
			return ""
		},
		Validate: func(loc Location) string {
			if loc.Prefix == "refused" {
				return "prefix refused"
			}
			return ""
		},
		Open: func(_ context.Context, loc Location) (driver.Backend, error) {
			return memstore.New(), nil
		},
	})
}

func TestRegisteredScheme(t *testing.T) {
	for _, tt := range []struct {
		raw     string
		want    Location
		wantErr string
	}{
		{raw: "regtest://rb-1", want: Location{Scheme: "regtest", Bucket: "rb-1"}},
		{raw: "REGTEST://rb-1/a/b/?endpoint=http://127.0.0.1:1", want: Location{Scheme: "regtest", Bucket: "rb-1", Prefix: "a/b", Endpoint: "http://127.0.0.1:1"}},
		{raw: "regtest://xx-1", wantErr: "starts with rb"},
		{raw: "regtest://rb-1/refused", wantErr: "prefix refused"},
		{raw: "regtest://rb-1?region=r", wantErr: `query parameter "region" is not one of regtest:// URLs, which take endpoint`},
		{raw: "regtest://rb-1?bogus=1", wantErr: `unknown query parameter "bogus"; regtest:// URLs take endpoint`},
		{raw: "regtest://rb-1?secret=s3cr3t", wantErr: "looks like a credential"},
		{raw: "regtest://u:s3cr3t@rb-1", wantErr: "credentials in URLs are not accepted"},
		{raw: "nope://x", wantErr: "regtest://"}, // listed among the supported schemes
	} {
		loc, err := ParseURL(tt.raw)
		if tt.wantErr != "" {
			if !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("ParseURL(%q) = %v; want ErrBadURL with %q", tt.raw, err, tt.wantErr)
			}
			continue
		}
		if err != nil || loc != tt.want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", tt.raw, loc, err, tt.want)
			continue
		}
		if again, err := ParseURL(loc.String()); err != nil || again != loc {
			t.Errorf("%q does not round-trip: %q gives %+v, %v", tt.raw, loc.String(), again, err)
		}
	}
	b, err := OpenBackend(t.Context(), "regtest://rb-1")
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if !strings.Contains(SupportedStores(), "regtest://BUCKET") {
		t.Errorf("SupportedStores() = %q lacks the registered form", SupportedStores())
	}
	// A scheme without a bucket to create: Init says so.
	if _, err := Init(t.Context(), "regtest://rb-1", ""); err == nil || !strings.Contains(err.Error(), "has no resource") {
		t.Errorf("Init of a scheme without Bucket: %v", err)
	}
}

func TestRegisterRefuses(t *testing.T) {
	open := func(context.Context, Location) (driver.Backend, error) { return nil, nil }
	for _, tt := range []struct {
		name string
		s    Scheme
	}{
		{"s3", Scheme{Form: "s3://X", Open: open}},
		{"regtest", Scheme{Form: "regtest://X", Open: open}},
		{"Upper", Scheme{Form: "Upper://X", Open: open}},
		{"noopen", Scheme{Form: "noopen://X"}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", tt.name)
				}
			}()
			Register(tt.name, tt.s)
		}()
	}
}
