package azblobstore

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

// TestEndpointWithoutAccount: an emulator's endpoint without the account
// path (what Azurite prints at start, http://127.0.0.1:10000) is refused
// before any request, saying the account path is missing and what the
// endpoint should be; Azure's own endpoint (the account in the host
// name) needs no path.
func TestEndpointWithoutAccount(t *testing.T) {
	for _, ep := range []string{"http://127.0.0.1:10000", "http://127.0.0.1:10000/", "http://localhost:10000", "http://[::1]:10000"} {
		reason := CheckEndpoint(ep)
		if !strings.Contains(reason, "account path is missing") || !strings.Contains(reason, "/devstoreaccount1") {
			t.Errorf("CheckEndpoint(%q) = %q, want it to say the account path is missing", ep, reason)
		}
		t.Setenv(EnvConnectionString, "")
		_, err := Open(t.Context(), "box", "", &Options{Endpoint: ep})
		if !errors.Is(err, rules.ErrInvalid) || !strings.Contains(err.Error(), "account path is missing") {
			t.Errorf("Open at %s: %v, want ErrInvalid saying the account path is missing", ep, err)
		}
	}
	for _, ep := range []string{"http://127.0.0.1:10000/devstoreaccount1", "https://acct.blob.core.windows.net"} {
		if reason := CheckEndpoint(ep); reason != "" {
			t.Errorf("CheckEndpoint(%q) = %q, want it accepted", ep, reason)
		}
	}
}

// TestNoCredentials: with no Azure credentials in the environment, a
// request to an http endpoint fails unsent, saying that no credentials
// were found and which variables fence reads, as driver.ErrPermission
// (not retried), instead of the SDK's "authorized requests are not
// permitted for non-TLS protected (https) endpoints". Open still sends
// nothing and succeeds.
func TestNoCredentials(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { n.Add(1) }))
	defer srv.Close()
	t.Setenv(EnvConnectionString, "")
	t.Setenv(EnvAccount, "devstoreaccount1")
	t.Setenv(EnvKey, "")
	b, err := Open(t.Context(), "box", "", &Options{Endpoint: srv.URL + "/devstoreaccount1"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = b.Get(t.Context(), "k", driver.GetOptions{})
	if err == nil {
		t.Fatal("Get without credentials succeeded")
	}
	msg := err.Error()
	for _, want := range []string{"no Azure credentials found for " + srv.URL, EnvConnectionString, EnvAccount, EnvKey} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "non-TLS") || !errors.Is(err, driver.ErrPermission) {
		t.Errorf("%v: want ErrPermission, without the SDK's non-TLS message", err)
	}
	if n.Load() != 0 {
		t.Errorf("%d requests were sent", n.Load())
	}
	// With a key, the request is sent.
	t.Setenv(EnvKey, base64.StdEncoding.EncodeToString([]byte("key")))
	if b, err = Open(t.Context(), "box", "", &Options{Endpoint: srv.URL + "/devstoreaccount1"}); err != nil {
		t.Fatal(err)
	}
	b.Get(t.Context(), "k", driver.GetOptions{})
	if n.Load() == 0 {
		t.Error("with a key, no request was sent")
	}
}
