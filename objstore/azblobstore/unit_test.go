package azblobstore

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

// responseError is the SDK's error for an answer of status and code.
func responseError(status int, code string) error {
	req, _ := http.NewRequest(http.MethodPut, "http://127.0.0.1:1/devstoreaccount1/c/k", nil)
	resp := &http.Response{
		StatusCode: status, Status: http.StatusText(status), Request: req,
		Header: http.Header{"X-Ms-Error-Code": {code}},
		Body:   io.NopCloser(strings.NewReader("")),
	}
	return runtime.NewResponseError(resp)
}

func unitBackend(t *testing.T) *Backend {
	c, err := container.NewClientWithNoCredential("http://127.0.0.1:1/devstoreaccount1/bkt", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(c, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestErrorClasses: every answer fence relies on maps to its class, for
// Get and for each put mode, and the SDK's error stays in the chain.
func TestErrorClasses(t *testing.T) {
	b := unitBackend(t)
	classes := []error{driver.ErrPreconditionFailed, driver.ErrNotFound, driver.ErrNotModified, driver.ErrPermission, driver.ErrPermanent, driver.ErrConflict, driver.ErrNoBucket}
	for _, tc := range []struct {
		status int
		code   string
		mode   driver.PutMode
		want   error
		msg    string
	}{
		{412, "ConditionNotMet", driver.Update{ETag: `"0x1"`}, driver.ErrPreconditionFailed, ""},
		{412, "ConditionNotMet", driver.Create{}, driver.ErrPreconditionFailed, ""},
		{409, "BlobAlreadyExists", driver.Create{}, driver.ErrPreconditionFailed, ""},
		// Azure's answer to If-Match on a missing blob; Azurite's is 412.
		{404, "BlobNotFound", driver.Update{ETag: `"0x1"`}, driver.ErrPreconditionFailed, ""},
		{404, "BlobNotFound", nil, driver.ErrNotFound, ""},
		{404, "ContainerNotFound", driver.Update{ETag: `"0x1"`}, driver.ErrNoBucket, `container "bkt" does not exist`},
		{404, "ContainerNotFound", driver.Create{}, driver.ErrNoBucket, `container "bkt" does not exist`},
		{403, "AuthenticationFailed", driver.Create{}, driver.ErrPermission, "refused the credentials"},
		{403, "AuthorizationFailure", driver.Create{}, driver.ErrPermission, "refused the credentials"},
		{403, "AuthorizationPermissionMismatch", driver.Create{}, driver.ErrPermission, "lack a role"},
		{400, "InvalidMetadata", driver.Create{}, driver.ErrPermanent, ""},
		// Retryable, and never a failed precondition: the Store settles
		// the write by reading.
		{503, "ServerBusy", driver.Create{}, nil, ""},
		{503, "ServerBusy", driver.Update{ETag: `"0x1"`}, nil, ""},
		{429, "", driver.Update{ETag: `"0x1"`}, nil, ""},
		{500, "InternalError", driver.Create{}, nil, ""},
		{409, "LeaseIdMissing", driver.Update{ETag: `"0x1"`}, nil, ""},
		{400, "InvalidBlockList", driver.Create{}, nil, ""},
	} {
		sdk := responseError(tc.status, tc.code)
		err := b.failPut("k", sdk, tc.mode)
		for _, class := range classes {
			want := class == tc.want || class == driver.ErrPermanent && errors.Is(tc.want, driver.ErrPermanent)
			if got := errors.Is(err, class); got != want {
				t.Errorf("%d %s (%T): errors.Is(%v) = %v: %v", tc.status, tc.code, tc.mode, class, got, err)
			}
		}
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.ErrorCode != tc.code {
			t.Errorf("%d %s: the SDK error is not in the chain: %v", tc.status, tc.code, err)
		}
		if tc.msg != "" && !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%d %s: %v; want it to say %q", tc.status, tc.code, err, tc.msg)
		}
	}
	if err := b.fail("get", "k", responseError(304, "ConditionNotMet")); !errors.Is(err, driver.ErrNotModified) {
		t.Errorf("304: %v", err)
	}
}

// TestMetadataNames: fence's names map to C# identifiers and back, and
// a name Azure cannot store fails before any request.
func TestMetadataNames(t *testing.T) {
	in := map[string]string{"fence-seq": "1", "fence-domain": "d", "a": "x", "b2-c-": "y"}
	enc, err := encodeMetadata(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fence_seq", "fence_domain", "a", "b2_c_"} {
		if enc[want] == nil {
			t.Errorf("encoded %v: no %q", enc, want)
		}
	}
	// The SDK reports names in Go's canonical header case.
	back := map[string]*string{}
	for k, v := range enc {
		back[strings.ToUpper(k[:1])+k[1:]] = v
	}
	got := decodeMetadata(back)
	if len(got) != len(in) {
		t.Fatalf("round trip: %v, want %v", got, in)
	}
	for k, v := range in {
		if got[k] != v {
			t.Fatalf("round trip: %v, want %v", got, in)
		}
	}
	for _, bad := range []string{"1abc", "", "a_b", "A"} {
		if _, err := encodeMetadata(map[string]string{bad: "v"}); !errors.Is(err, driver.ErrPermanent) || !strings.Contains(err.Error(), "C# identifiers") {
			t.Errorf("name %q: %v; want ErrPermanent explaining the C# identifier rule", bad, err)
		}
	}
}

// TestBadOptions: invalid options, container names and endpoints fail
// Open with rules.ErrInvalid, naming what is wrong, and never echo
// credentials.
func TestBadOptions(t *testing.T) {
	t.Setenv(EnvConnectionString, "")
	t.Setenv(EnvAccount, "devstoreaccount1")
	t.Setenv(EnvKey, "")
	for _, tc := range []struct {
		name, container string
		opts            Options
		want            string
	}{
		{"part size", "box", Options{PartSize: -1}, "PartSize"},
		{"threshold", "box", Options{MultipartThreshold: MaxSinglePut + 1}, "MultipartThreshold"},
		{"container upper case", "Box", Options{}, "container"},
		{"container short", "bx", Options{}, "container"},
		{"container double dash", "a--b", Options{}, "container"},
		{"endpoint user", "box", Options{Endpoint: "http://user:secret@127.0.0.1:1/devstoreaccount1"}, "credentials"},
		{"endpoint sas", "box", Options{Endpoint: "https://acct.blob.core.windows.net/?sv=1&sig=secret"}, "SAS"},
		{"endpoint scheme", "box", Options{Endpoint: "ftp://127.0.0.1:1"}, "http or https"},
		{"endpoint path", "box", Options{Endpoint: "http://127.0.0.1:1/acct/box"}, "one path segment"},
		{"account mismatch", "box", Options{Account: "other"}, "AZURE_STORAGE_ACCOUNT"},
	} {
		_, err := Open(t.Context(), tc.container, "", &tc.opts)
		if !errors.Is(err, rules.ErrInvalid) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: %v; want ErrInvalid naming %q, without the secret", tc.name, err, tc.want)
		}
	}
	t.Setenv(EnvAccount, "")
	if _, err := Open(t.Context(), "box", "", nil); !errors.Is(err, rules.ErrInvalid) || !strings.Contains(err.Error(), "account") {
		t.Errorf("no account, no endpoint: %v", err)
	}
	t.Setenv(EnvAccount, "acct")
	t.Setenv(EnvKey, "not base64 secret!")
	if _, err := Open(t.Context(), "box", "", nil); err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), EnvKey) {
		t.Errorf("bad key: %v", err)
	}
	t.Setenv(EnvConnectionString, "AccountKey=secret;garbage")
	if _, err := Open(t.Context(), "box", "", nil); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("bad connection string: %v", err)
	}
}

// TestLocation: Open names the container, prefix and endpoint, and the
// default endpoint comes from the account.
func TestLocation(t *testing.T) {
	t.Setenv(EnvConnectionString, "")
	t.Setenv(EnvAccount, "acct")
	t.Setenv(EnvKey, "a2V5")
	b, err := Open(t.Context(), "box", "/tenant/x/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "azblob://box/tenant/x@https://acct.blob.core.windows.net"; b.Location() != want {
		t.Fatalf("Location = %q, want %q", b.Location(), want)
	}
	b, err = Open(t.Context(), "box", "", &Options{Endpoint: "http://127.0.0.1:10000/acct"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "azblob://box@http://127.0.0.1:10000/acct"; b.Location() != want {
		t.Fatalf("Location = %q, want %q", b.Location(), want)
	}
	if err := b.CheckKey(strings.Repeat("k", 1025)); !errors.Is(err, rules.ErrInvalid) {
		t.Fatalf("CheckKey of 1025 characters: %v", err)
	}
}
