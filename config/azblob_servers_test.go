package config

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/fencedstore/fence/internal/azuretest"
	"github.com/fencedstore/fence/objstore/azblobstore"
)

// TestAzblobInitDoctor: against Azurite (FENCE_TEST_AZURE_ENDPOINT,
// which deploy/local/servers.sh sets), Init creates an azblob:// URL's
// container, a second Init finds it, Doctor passes every check (the
// capability probe included, also on Put Block List), and a missing
// container and wrong credentials are reported as such.
func TestAzblobInitDoctor(t *testing.T) {
	ep := azuretest.Use(t, "config's init and doctor")
	var r [6]byte
	rand.Read(r[:])
	name := "fence-config-" + hex.EncodeToString(r[:])
	url := fmt.Sprintf("azblob://%s/tenant?endpoint=%s", name, ep)
	ctx := t.Context()

	checks, err := Doctor(ctx, url, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(statuses(checks), ", "); !strings.Contains(got, "container exists=fail") || !strings.Contains(got, "store reachable=ok") {
		t.Fatalf("Doctor before Init: %s", got)
	}

	res, err := Init(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := azblobstore.Open(ctx, name, "", &azblobstore.Options{Endpoint: ep})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Client().Delete(context.WithoutCancel(ctx), nil) })
	if len(res) != 1 || res[0].Kind != "container" || res[0].Name != name || !res[0].Created || res[0].Location != "azblob://"+name+"@"+ep {
		t.Fatalf("Init = %+v", res)
	}
	if res, err := Init(ctx, url, ""); err != nil || len(res) != 1 || res[0].Created {
		t.Fatalf("second Init = %+v, %v; want the container, not created", res, err)
	}

	checks, err = Doctor(ctx, url, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if c.Status != StatusOK {
			t.Errorf("Doctor: %s = %s: %s", c.Name, c.Status, c.Detail)
		}
		if c.Name == "conditional writes honoured" && !strings.Contains(c.Detail, "also on Put Block List") {
			t.Errorf("Doctor: %s: %q; want it to say the probe checked Put Block List", c.Name, c.Detail)
		}
	}

	backend, err := OpenBackend(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if want := "azblob://" + name + "/tenant@" + ep; backend.Location() != want {
		t.Fatalf("Location = %q, want %q", backend.Location(), want)
	}

	t.Setenv(azblobstore.EnvKey, "bm90IHRoZSBrZXk=")
	checks, err = Doctor(ctx, url, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(statuses(checks), ", "); !strings.Contains(got, "store reachable=ok") || !strings.Contains(got, "container exists=fail") || !strings.Contains(checks[1].Detail, "refused the credentials") {
		t.Fatalf("Doctor with a wrong key: %s (%s)", got, checks[1].Detail)
	}
}
