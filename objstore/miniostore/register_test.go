package miniostore

import (
	"errors"
	"fmt"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/fencedstore/fence/config/registry"
)

// Importing the package registers minio://: config tells a server's
// answer from no connection, and reads MinIO's error codes.
func TestRegistersMinio(t *testing.T) {
	o, ok := registry.LookupOpener("minio")
	if !ok {
		t.Fatal("minio:// is not registered")
	}
	for _, tt := range []struct {
		err     error
		reached bool
		code    string
	}{
		{fmt.Errorf("stat: %w", minio.ErrorResponse{Code: "InvalidAccessKeyId", StatusCode: 403}), true, "InvalidAccessKeyId"},
		{minio.ErrorResponse{Code: "RequestError"}, false, "RequestError"}, // no status: no answer
		{errors.New("dial tcp: connection refused"), false, ""},
	} {
		if got := o.Reached(tt.err); got != tt.reached {
			t.Errorf("Reached(%v) = %v, want %v", tt.err, got, tt.reached)
		}
		if got := o.ErrorCode(tt.err); got != tt.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", tt.err, got, tt.code)
		}
	}
}
