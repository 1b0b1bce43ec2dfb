package config

import (
	"errors"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	const ep = "http://127.0.0.1:9000"
	tests := []struct {
		raw     string
		want    Location
		wantErr string // substring of the error; "" means success
	}{
		{raw: "file://./fence-data", want: Location{Scheme: "file", Path: "./fence-data"}},
		{raw: "file:///tmp/x", want: Location{Scheme: "file", Path: "/tmp/x"}},
		{raw: "FILE:///tmp/x", want: Location{Scheme: "file", Path: "/tmp/x"}},
		{raw: "file://fence-data", want: Location{Scheme: "file", Path: "fence-data"}},
		{raw: "file://../a b/c", want: Location{Scheme: "file", Path: "../a b/c"}},
		{raw: "file://./a@b", want: Location{Scheme: "file", Path: "./a@b"}},
		{raw: "mem://", want: Location{Scheme: "mem", Path: ""}},
		{raw: "mem://tests", want: Location{Scheme: "mem", Path: "tests"}},
		{raw: "mem://tests/", want: Location{Scheme: "mem", Path: "tests"}},

		// s3://
		{raw: "s3://bucket", want: Location{Scheme: "s3", Bucket: "bucket"}},
		{raw: "S3://bucket/", want: Location{Scheme: "s3", Bucket: "bucket"}},
		{raw: "s3://my.bucket-1/reports/2026/", want: Location{Scheme: "s3", Bucket: "my.bucket-1", Prefix: "reports/2026"}},
		{raw: "s3://bucket/p@x", want: Location{Scheme: "s3", Bucket: "bucket", Prefix: "p@x"}},
		{raw: "s3://bucket/p?endpoint=" + ep + "&region=eu-west-1&path_style=true",
			want: Location{Scheme: "s3", Bucket: "bucket", Prefix: "p", Endpoint: ep, Region: "eu-west-1", PathStyle: true}},
		{raw: "s3://bucket?path_style=false", want: Location{Scheme: "s3", Bucket: "bucket"}},
		{raw: "s3://bucket?endpoint=https%3A%2F%2Fs3.example.com%2F", want: Location{Scheme: "s3", Bucket: "bucket", Endpoint: "https://s3.example.com/"}},
		{raw: "s3://bucket?sse=AES256", want: Location{Scheme: "s3", Bucket: "bucket", SSE: "AES256"}},
		{raw: "s3://bucket?sse=aws:kms&kms_key_id=arn:aws:kms:eu-west-1:111122223333:key/abcd",
			want: Location{Scheme: "s3", Bucket: "bucket", SSE: "aws:kms", KMSKeyID: "arn:aws:kms:eu-west-1:111122223333:key/abcd"}},
		{raw: "s3://bucket?sse=aws%3Akms", want: Location{Scheme: "s3", Bucket: "bucket", SSE: "aws:kms"}},

		// minio://
		{raw: "minio://bucket?endpoint=" + ep, want: Location{Scheme: "minio", Bucket: "bucket", Endpoint: ep}},
		{raw: "minio://bucket/tenant/a?endpoint=https://minio.example.com&region=us-east-1&sse=AES256",
			want: Location{Scheme: "minio", Bucket: "bucket", Prefix: "tenant/a", Endpoint: "https://minio.example.com", Region: "us-east-1", SSE: "AES256"}},

		// dynamodb://
		{raw: "dynamodb://fence-leases", want: Location{Scheme: "dynamodb", Table: "fence-leases"}},
		{raw: "dynamodb://Fence_Leases.v2/?region=eu-west-1&endpoint=http://127.0.0.1:8000",
			want: Location{Scheme: "dynamodb", Table: "Fence_Leases.v2", Region: "eu-west-1", Endpoint: "http://127.0.0.1:8000"}},

		{raw: "", wantErr: "empty"},
		{raw: "./fence-data", wantErr: "no scheme"},
		{raw: "file:/tmp/x", wantErr: "file://PATH"},
		{raw: "file://", wantErr: "no directory"},
		{raw: "file:///tmp/x?mode=1", wantErr: "no query"},
		{raw: "file://u:pw@host/x", wantErr: "no user or host"},
		{raw: "mem://a/b", wantErr: "only letters"},
		{raw: "ftp://host/x", wantErr: `unsupported scheme "ftp"`},
		{raw: "1x://host", wantErr: "malformed scheme"},

		{raw: "s3://", wantErr: "no bucket"},
		{raw: "s3:///prefix", wantErr: "no bucket"},
		{raw: "s3://Bucket", wantErr: `bucket "Bucket"`},
		{raw: "s3://ab", wantErr: "3 to 63"},
		{raw: "s3://-bucket", wantErr: "starting and ending"},
		{raw: "s3://a..b", wantErr: "bucket"},
		{raw: "s3://bucket_1", wantErr: "bucket"},
		{raw: "s3://localhost:9000/bucket", wantErr: "endpoint parameter"},
		{raw: "minio://localhost:9000/bucket", wantErr: "endpoint parameter"},
		{raw: "s3://bucket/a//b", wantErr: "segments"},
		{raw: "s3://bucket/a/../b", wantErr: "segments"},
		{raw: "s3://bucket/a\x01", wantErr: "control"},
		{raw: "s3://bucket#frag", wantErr: "fragment"},
		{raw: "s3://bucket?", wantErr: "empty query parameter"},
		{raw: "s3://bucket?region=a&&path_style=true", wantErr: "empty query parameter"},
		{raw: "s3://bucket?regoin=eu-west-1", wantErr: `unknown query parameter "regoin"; s3:// URLs take endpoint, region, path_style, sse, kms_key_id`},
		{raw: "s3://bucket?region=a&region=b", wantErr: "given twice"},
		{raw: "s3://bucket?region=", wantErr: "no value"},
		{raw: "s3://bucket?region", wantErr: "no value"},
		{raw: "s3://bucket?region=eu west", wantErr: "region"},
		{raw: "s3://bucket?path_style=yes", wantErr: "true or false"},
		{raw: "s3://bucket?sse=aes256", wantErr: "AES256"},
		{raw: "s3://bucket?kms_key_id=k", wantErr: "needs sse=aws:kms"},
		{raw: "s3://bucket?sse=AES256&kms_key_id=k", wantErr: "needs sse=aws:kms"},
		{raw: "s3://bucket?endpoint=127.0.0.1:9000", wantErr: "http"},
		{raw: "s3://bucket?endpoint=ftp://host", wantErr: "http or https"},
		{raw: "s3://bucket?endpoint=http://host/path", wantErr: "only a scheme, host and port"},
		{raw: "s3://bucket?endpoint=http://", wantErr: "want http://HOST:PORT"},
		{raw: "s3://bucket?endpoint=%zz", wantErr: "percent-encoding"},
		{raw: "minio://bucket", wantErr: "needs the server"},
		{raw: "minio://bucket?path_style=true&endpoint=" + ep, wantErr: `"path_style" is not one of minio:// URLs`},
		{raw: "dynamodb://t", wantErr: "3 to 255"},
		{raw: "dynamodb://", wantErr: "table"},
		{raw: "dynamodb://table/x", wantErr: "no path"},
		{raw: "dynamodb://localhost:8000/table", wantErr: "endpoint parameter"},
		{raw: "dynamodb://table?path_style=true", wantErr: "not one of dynamodb://"},
		{raw: "dynamodb://table?sse=AES256", wantErr: "not one of dynamodb://"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := ParseURL(tt.raw)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("ParseURL(%q) = %+v, want an error containing %q", tt.raw, got, tt.wantErr)
				}
				if !errors.Is(err, ErrBadURL) {
					t.Errorf("error %v does not match ErrBadURL", err)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q does not contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseURL(%q): %v", tt.raw, err)
			}
			if got != tt.want {
				t.Fatalf("ParseURL(%q) = %+v, want %+v", tt.raw, got, tt.want)
			}
			again, err := ParseURL(got.String())
			if err != nil || again != got {
				t.Fatalf("ParseURL(%q) = %+v, %v; want %+v", got.String(), again, err, got)
			}
		})
	}
}

func TestLocationString(t *testing.T) {
	for _, tt := range []struct {
		loc  Location
		want string
	}{
		{Location{Scheme: "s3", Bucket: "b", Prefix: "p/q", Endpoint: "http://127.0.0.1:9000", Region: "eu-west-1", PathStyle: true},
			"s3://b/p/q?endpoint=http://127.0.0.1:9000&region=eu-west-1&path_style=true"},
		{Location{Scheme: "minio", Bucket: "b", Endpoint: "https://h", SSE: "aws:kms", KMSKeyID: "alias/x y"},
			"minio://b?endpoint=https://h&sse=aws:kms&kms_key_id=alias/x%20y"},
		{Location{Scheme: "dynamodb", Table: "leases"}, "dynamodb://leases"},
		{Location{Scheme: "file", Path: "./d"}, "file://./d"},
	} {
		if got := tt.loc.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.loc, got, tt.want)
		}
	}
}

// Credentials in a URL are refused, and the error shows none of them.
func TestParseURLRefusesCredentials(t *testing.T) {
	for _, tt := range []struct{ raw, wantErr string }{
		{"s3://AKIAEXAMPLE:s3cr3t@bucket/prefix", "credentials in URLs are not accepted"},
		{"s3://AKIAEXAMPLE@bucket", "credentials in URLs are not accepted"},
		{"s3://AKIAEXAMPLE:s3cr3t/with/slashes@bucket/prefix", "credentials in URLs are not accepted"},
		{"s3://AKIAEXAMPLE:s3cr3t?x@bucket", "credentials in URLs are not accepted"},
		{"s3://AKIAEXAMPLE:s3cr3t=@bucket", "credentials in URLs are not accepted"},
		{"minio://admin:s3cr3t@bucket?endpoint=http://127.0.0.1:9000", "credentials in URLs are not accepted"},
		{"minio://admin:s3cr3t@localhost:9000/bucket", "credentials in URLs are not accepted"},
		{"dynamodb://AKIA:s3cr3t@table", "credentials in URLs are not accepted"},
		{"s3://bucket?endpoint=http://admin:s3cr3t@127.0.0.1:9000", "endpoint: credentials"},
		{"s3://bucket?endpoint=http%3A%2F%2Fadmin%3As3cr3t%40127.0.0.1%3A9000", "endpoint: credentials"},
		{"minio://bucket?endpoint=http://admin:s3cr3t@127.0.0.1:9000", "endpoint: credentials"},
		{"dynamodb://table?endpoint=http://admin:s3cr3t@127.0.0.1:8000", "endpoint: credentials"},
		{"s3://bucket?access_key=AKIA&secret_key=s3cr3t", `"access_key" looks like a credential`},
		{"s3://bucket?region=eu-west-1&aws_secret_access_key=s3cr3t", `"aws_secret_access_key" looks like a credential`},
		{"s3://bucket?X-Amz-Credential=s3cr3t", "looks like a credential"},
		{"s3://bucket?session_token=s3cr3t", "looks like a credential"},
		{"minio://bucket?endpoint=http://h:1&password=s3cr3t", "looks like a credential"},
		{"dynamodb://table?AWS_SECRET_ACCESS_KEY=s3cr3t", "looks like a credential"},
		{"ftp://me:s3cr3t@host/x", "unsupported scheme"},
		{"file://me:s3cr3t@host/x", "no user or host"},
		{"me:s3cr3t@host/x", "no scheme"},
		// A SAS-like query in an endpoint: the reason names it redacted.
		{"s3://bucket?endpoint=https://h/%3Fsig%3Ds3cr3t", "want only a scheme, host and port"},
		{"gs://bucket?endpoint=https://h/%3Fsig%3Ds3cr3t", "want only a scheme, host and port"},
	} {
		_, err := ParseURL(tt.raw)
		if err == nil {
			t.Errorf("ParseURL(%q) succeeded", tt.raw)
			continue
		}
		if !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ParseURL(%q) = %v; want ErrBadURL containing %q", tt.raw, err, tt.wantErr)
		}
		if strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("ParseURL(%q) error shows the secret: %v", tt.raw, err)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"file://./fence-data", "file://./fence-data"},
		{"s3://AKIA:secret@bucket/prefix", "s3://bucket/prefix"},
		{"s3://user@bucket", "s3://bucket"},
		{"minio://a:b@c@host:9000/b?x=1", "minio://host:9000/b?x=1"},
		{"s3://bucket/p?region=us-east-1&secret_key=abc&SessionToken=xyz", "s3://bucket/p?region=us-east-1&secret_key=REDACTED&SessionToken=REDACTED"},
		{"s3://bucket/p?X-Amz-Signature=abc#frag", "s3://bucket/p?X-Amz-Signature=REDACTED#frag"},
		{"s3://bucket/p@x", "s3://bucket/p@x"},
		{"user:pw@host/x", "host/x"},
		{"", ""},
		// Passwords holding '/', '?' or '='.
		{"s3://AKIA:se/cr/et@bucket/prefix", "s3://bucket/prefix"},
		{"s3://AKIA:se?cret@bucket?region=r", "s3://bucket?region=r"},
		{"s3://AKIA:secret=@bucket", "s3://bucket"},
		// URLs with credentials in query values, also percent-encoded.
		{"s3://bucket?endpoint=http://u:pw@h:9000&region=r", "s3://bucket?endpoint=http://h:9000&region=r"},
		{"s3://bucket?endpoint=http%3A%2F%2Fu%3Apw%40h%3A9000", "s3://bucket?endpoint=http://h:9000"},
		{"s3://bucket?endpoint=http://h:9000", "s3://bucket?endpoint=http://h:9000"},
		{"s3://bucket?endpoint=http%3A%2F%2Fh%3A9000", "s3://bucket?endpoint=http%3A%2F%2Fh%3A9000"},
		{"s3://bucket?password=pw&passwd=pw&access_key=a", "s3://bucket?password=REDACTED&passwd=REDACTED&access_key=REDACTED"},
	}
	for _, tt := range tests {
		if got := Redact(tt.raw); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.raw, got, tt.want)
		}
		if got := Redact(Redact(tt.raw)); got != tt.want {
			t.Errorf("Redact is not idempotent on %q: %q", tt.raw, got)
		}
	}
}
