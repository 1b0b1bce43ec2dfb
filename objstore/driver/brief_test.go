package driver_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// azureDump is the shape of the Azure SDK's error text.
const azureDump = `GET http://127.0.0.1:10000/devstoreaccount1/nobkt
--------------------------------------------------------------------------------
RESPONSE 404: 404 The specified container does not exist.
ERROR CODE: ContainerNotFound
--------------------------------------------------------------------------------
<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Error>
  <Code>ContainerNotFound</Code>
  <Message>The specified container does not exist.
RequestId:3c249c1b-4408-424f-b88a-fbb13fd7e8a8
Time:2026-12-06T05:07:49.150Z</Message>
</Error>
--------------------------------------------------------------------------------
`

// TestBrief: a store's answer is one line with its code, status and
// message; the SDK's dump stays in Error and errors.As reaches it.
func TestBrief(t *testing.T) {
	sdk := errors.New(azureDump)
	svc := driver.Service(sdk, "ContainerNotFound", 404, "The specified container does not exist.")
	err := fmt.Errorf("azblobstore: get %q: %w", "k", &driver.NoBucketError{Kind: "container", Name: "nobkt", Endpoint: "http://127.0.0.1:10000/devstoreaccount1", Err: svc})
	got := driver.Brief(err)
	want := `azblobstore: get "k": container "nobkt" does not exist at http://127.0.0.1:10000/devstoreaccount1 ('fence init' creates it): ContainerNotFound: The specified container does not exist. (HTTP 404)`
	if got != want {
		t.Errorf("Brief:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(err.Error(), "RequestId:") {
		t.Errorf("Error lost the SDK's full text: %q", err.Error())
	}
	if !errors.Is(err, sdk) || !errors.Is(err, driver.ErrNoBucket) || errors.Is(err, driver.ErrNotFound) {
		t.Errorf("chain: want the SDK error and ErrNoBucket, not ErrNotFound: %v", err)
	}
	if driver.Service(svc, "X", 1, "y") != svc {
		t.Error("Service wrapped a ServiceError again")
	}
	// Line breaks that no ServiceError explains are joined.
	if got := driver.Brief(errors.New("a\n----\n  b\n")); got != "a b" {
		t.Errorf("Brief of two lines = %q, want %q", got, "a b")
	}
}
