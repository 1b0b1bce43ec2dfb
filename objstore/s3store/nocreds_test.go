package s3store

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// TestNoCredentials: with no AWS credentials anywhere in the chain, a
// request fails at once, saying so and naming the variables to set,
// as driver.ErrPermission (which the Store does not retry), and sends
// nothing to the store.
func TestNoCredentials(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1) }))
	defer srv.Close()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null", "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
	} {
		t.Setenv(k, v)
	}
	b, err := Open(t.Context(), "bkt", "", &Options{Endpoint: srv.URL, PathStyle: true, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = b.Get(t.Context(), "k", driver.GetOptions{})
	if !errors.Is(err, driver.ErrPermission) || !strings.Contains(err.Error(), "no AWS credentials found for "+srv.URL) || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Fatalf("Get without credentials: %v", err)
	}
	if n.Load() != 0 {
		t.Errorf("%d requests reached the store", n.Load())
	}
}
