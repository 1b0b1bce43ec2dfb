package dynamocoord

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fencedstore/fence/config/registry"
)

// Importing the package registers dynamodb://: config opens its tables,
// tells DynamoDB's answer (a missing table is one) from no connection,
// and reads its error codes.
func TestRegistersDynamoDB(t *testing.T) {
	c, ok := registry.LookupCoordinator("dynamodb")
	if !ok {
		t.Fatal("dynamodb:// is not registered")
	}
	for _, tt := range []struct {
		err     error
		reached bool
		code    string
	}{
		{fmt.Errorf("get: %w", &smithy.GenericAPIError{Code: "UnrecognizedClientException"}), true, "UnrecognizedClientException"},
		{fmt.Errorf("check: %w", ErrTableNotFound), true, ""},
		{ErrWrongSchema, true, ""},
		{&smithyhttp.RequestSendError{Err: errors.New("dial tcp: connection refused")}, false, ""},
	} {
		if got := c.Reached(tt.err); got != tt.reached {
			t.Errorf("Reached(%v) = %v, want %v", tt.err, got, tt.reached)
		}
		if got := c.ErrorCode(tt.err); got != tt.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", tt.err, got, tt.code)
		}
	}
	tbl, err := c.Table(t.Context(), registry.Location{Scheme: "dynamodb", Table: "fence-leases", Endpoint: "http://127.0.0.1:8000", Region: "eu-west-1"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tbl.Location(), "dynamodb://fence-leases@http://127.0.0.1:8000"; got != want {
		t.Errorf("Location() = %q, want %q", got, want)
	}
}
