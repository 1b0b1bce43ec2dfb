package config

import (
	"errors"
	"strings"
	"testing"
)

// azblob:// is a registered scheme (objstore/azblobstore/register.go):
// listed among the store URL forms, its buckets called containers.
func TestAzblobRegistered(t *testing.T) {
	const azblobForm = "azblob://CONTAINER[/PREFIX][?endpoint=URL&account=NAME]"
	if !strings.Contains(SupportedStores(), azblobForm) || strings.Contains(Supported, "azblob") {
		t.Errorf("SupportedStores() = %q, Supported = %q; want the azblob form from the registry only", SupportedStores(), Supported)
	}
	if kindOf("azblob") != "container" || kindOf("gs") != "bucket" {
		t.Errorf("kinds: azblob %q, gs %q", kindOf("azblob"), kindOf("gs"))
	}
}

func TestParseAzblobURL(t *testing.T) {
	const azurite = "http://127.0.0.1:10000/devstoreaccount1"
	for _, tt := range []struct {
		raw     string
		want    Location
		wantErr string
	}{
		{raw: "azblob://reports", want: Location{Scheme: "azblob", Bucket: "reports"}},
		{raw: "AZBLOB://reports/", want: Location{Scheme: "azblob", Bucket: "reports"}},
		{raw: "azblob://reports-1/tenant/a/", want: Location{Scheme: "azblob", Bucket: "reports-1", Prefix: "tenant/a"}},
		{raw: "azblob://reports?endpoint=" + azurite, want: Location{Scheme: "azblob", Bucket: "reports", Endpoint: azurite}},
		{raw: "azblob://reports/p?account=fencestore", want: Location{Scheme: "azblob", Bucket: "reports", Prefix: "p", Account: "fencestore"}},
		{raw: "azblob://reports?endpoint=https://fencestore.blob.core.windows.net&account=fencestore",
			want: Location{Scheme: "azblob", Bucket: "reports", Endpoint: "https://fencestore.blob.core.windows.net", Account: "fencestore"}},

		{raw: "azblob://", wantErr: "no container"},
		{raw: "azblob:///p", wantErr: "no container"},
		{raw: "azblob://Reports", wantErr: `container "Reports"`},
		{raw: "azblob://ab", wantErr: "3 to 63"},
		{raw: "azblob://a--b", wantErr: `"--"`},
		{raw: "azblob://my.container", wantErr: "container"},
		{raw: "azblob://127.0.0.1:10000/reports", wantErr: "endpoint parameter"},
		{raw: "azblob://reports#x", wantErr: "fragment"},
		{raw: "azblob://reports/a//b", wantErr: "segments"},
		{raw: "azblob://reports?region=eu", wantErr: `"region" is not one of azblob:// URLs, which take endpoint, account`},
		{raw: "azblob://reports?path_style=true", wantErr: "not one of azblob://"},
		{raw: "azblob://reports?container=x", wantErr: `unknown query parameter "container"; azblob:// URLs take endpoint, account`},
		{raw: "azblob://reports?account=Fence", wantErr: "3 to 24 lower-case letters and digits"},
		{raw: "azblob://reports?account=abc&account=abd", wantErr: "given twice"},
		{raw: "azblob://reports?endpoint=ftp://h", wantErr: "http or https"},
		{raw: "azblob://reports?endpoint=http://h:1/acct/reports", wantErr: "one path segment"},
		{raw: "azblob://reports?endpoint=127.0.0.1:10000", wantErr: "endpoint"},
		{raw: "s3://bucket?account=a", wantErr: `unknown query parameter "account"`},
		{raw: "gs://bucket?account=abc", wantErr: `unknown query parameter "account"; gs:// URLs take endpoint`},
		{raw: "azblob://reports?endpoint=http://127.0.0.1:1/acct/x", wantErr: "one path segment"},
		{raw: "Azblob:reports", wantErr: "azblob://"}, // no "://": the supported schemes include it
		{raw: "1x://reports", wantErr: "azblob://"},
	} {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := ParseURL(tt.raw)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseURL(%q) = %+v, %v; want ErrBadURL containing %q", tt.raw, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseURL(%q) = %+v, %v; want %+v", tt.raw, got, err, tt.want)
			}
			again, err := ParseURL(got.String())
			if err != nil || again != got {
				t.Fatalf("ParseURL(%q) = %+v, %v; want %+v", got.String(), again, err, got)
			}
		})
	}
}

// Azure credentials in a URL are refused (a user, a key, a SAS token),
// and the error shows none of them.
func TestParseAzblobURLRefusesCredentials(t *testing.T) {
	for _, tt := range []struct{ raw, wantErr string }{
		{"azblob://acct:s3cr3t@reports", "credentials in URLs are not accepted: fence takes Azure credentials only from the environment"},
		{"azblob://acct@reports/p", "credentials in URLs are not accepted"},
		{"azblob://reports?endpoint=http://acct:s3cr3t@127.0.0.1:10000/acct", "endpoint: credentials"},
		{"azblob://reports?sv=2024-01-01&sig=s3cr3t", `unknown query parameter "sv"`},
		{"azblob://reports?sig=s3cr3t", `"sig" looks like a credential; fence takes Azure credentials only from the environment`},
		{"azblob://reports?account_key=s3cr3t", "looks like a credential"},
		{"azblob://reports?connection_string=AccountKey%3Ds3cr3t", "looks like a credential"},
		{"azblob://reports?endpoint=https://acct.blob.core.windows.net/%3Fsig%3Ds3cr3t", "SAS token"},
	} {
		_, err := ParseURL(tt.raw)
		if err == nil || !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ParseURL(%q) = %v; want ErrBadURL containing %q", tt.raw, err, tt.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("ParseURL(%q) error shows the secret: %v", tt.raw, err)
		}
	}
}
