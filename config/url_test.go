package config

import (
	"errors"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		raw     string
		want    Location
		wantErr string // substring of the error; "" means success
	}{
		{raw: "file://./fence-data", want: Location{"file", "./fence-data"}},
		{raw: "file:///tmp/x", want: Location{"file", "/tmp/x"}},
		{raw: "FILE:///tmp/x", want: Location{"file", "/tmp/x"}},
		{raw: "file://fence-data", want: Location{"file", "fence-data"}},
		{raw: "file://../a b/c", want: Location{"file", "../a b/c"}},
		{raw: "file://./a@b", want: Location{"file", "./a@b"}},
		{raw: "mem://", want: Location{"mem", ""}},
		{raw: "mem://tests", want: Location{"mem", "tests"}},
		{raw: "mem://tests/", want: Location{"mem", "tests"}},
		{raw: "", wantErr: "empty"},
		{raw: "./fence-data", wantErr: "no scheme"},
		{raw: "file:/tmp/x", wantErr: "file://PATH"},
		{raw: "file://", wantErr: "no directory"},
		{raw: "file:///tmp/x?mode=1", wantErr: "no query"},
		{raw: "file://u:pw@host/x", wantErr: "no user or host"},
		{raw: "mem://a/b", wantErr: "only letters"},
		{raw: "s3://bucket/prefix", wantErr: "not supported yet"},
		{raw: "minio://localhost:9000/b", wantErr: "not supported yet"},
		{raw: "dynamodb://table", wantErr: "not supported yet"},
		{raw: "ftp://host/x", wantErr: `unsupported scheme "ftp"`},
		{raw: "1x://host", wantErr: "malformed scheme"},
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

func TestParseURLErrorsHideCredentials(t *testing.T) {
	for _, raw := range []string{
		"s3://AKIAEXAMPLE:s3cr3t@bucket/prefix",
		"minio://admin:s3cr3t@localhost:9000/bucket",
		"ftp://me:s3cr3t@host/x",
		"dynamodb://table?region=eu-west-1&secret_access_key=s3cr3t",
		"file://me:s3cr3t@host/x",
		"me:s3cr3t@host/x",
	} {
		_, err := ParseURL(raw)
		if err == nil {
			t.Fatalf("ParseURL(%q) succeeded", raw)
		}
		if strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("ParseURL(%q) error shows the secret: %v", raw, err)
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
