package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/smithy-go"
	"github.com/minio/minio-go/v7"
)

// A failed check whose error is a refused key or signature names the
// settings to check; other failures do not get the hint.
func TestDoctorCredentialHint(t *testing.T) {
	for _, tc := range []struct {
		err  error
		hint bool
	}{
		{fmt.Errorf("s3store: head bucket: %w", &smithy.GenericAPIError{Code: "SignatureDoesNotMatch", Message: "The request signature we calculated does not match the signature you provided."}), true},
		{fmt.Errorf("miniostore: %w", minio.ErrorResponse{Code: "InvalidAccessKeyId", StatusCode: 403}), true},
		{&smithy.GenericAPIError{Code: "UnrecognizedClientException"}, true},
		{&smithy.GenericAPIError{Code: "NoSuchBucket"}, false},
		{fmt.Errorf("dial tcp: connection refused"), false},
	} {
		var d doctor
		d.add("store reachable", StatusFail, "s3://b: %v", tc.err)
		got := d.checks[0].Detail
		has := strings.Contains(got, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") && strings.Contains(got, "AWS_PROFILE") && strings.Contains(got, "region")
		if has != tc.hint {
			t.Errorf("detail %q: hint %v, want %v", got, has, tc.hint)
		}
	}
}
