package s3store

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fencedstore/fence/config/registry"
)

// Importing the package registers s3://: config opens it, tells a
// server's answer from no connection, and reads S3's error codes.
func TestRegistersS3(t *testing.T) {
	o, ok := registry.LookupOpener("s3")
	if !ok {
		t.Fatal("s3:// is not registered")
	}
	api := fmt.Errorf("head bucket: %w", &smithy.GenericAPIError{Code: "SignatureDoesNotMatch"})
	send := &smithyhttp.RequestSendError{Err: errors.New("dial tcp: connection refused")}
	noReply := &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{}}, Err: errors.New("no reply")}}
	for _, tt := range []struct {
		err     error
		reached bool
		code    string
	}{
		{api, true, "SignatureDoesNotMatch"},
		{send, false, ""},
		{noReply, false, ""},
		{errors.New("plain"), false, ""},
	} {
		if got := o.Reached(tt.err); got != tt.reached {
			t.Errorf("Reached(%v) = %v, want %v", tt.err, got, tt.reached)
		}
		if got := o.ErrorCode(tt.err); got != tt.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", tt.err, got, tt.code)
		}
	}
}
