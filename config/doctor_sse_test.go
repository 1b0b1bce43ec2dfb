package config

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/memstore"
	"github.com/fencedstore/fence/objstore/miniostore"
	"github.com/fencedstore/fence/objstore/s3store"
)

// The backends whose encryption doctor checks.
var (
	_ driver.SSEReporter = (*s3store.Backend)(nil)
	_ driver.SSEReporter = (*miniostore.Backend)(nil)
)

// sseMem is a memory store that asks for server-side encryption and
// reports for each object the encryption stored, which honour sets:
// "asked" stores what was asked, "none" stores plaintext, "other" stores
// AES256 whatever was asked, and "refuse" fails every write that asks.
type sseMem struct {
	*memstore.Backend
	sse, kmsKeyID string
	honour        string
}

func (b sseMem) Put(ctx context.Context, key string, r io.Reader, size int64, o driver.PutOptions) (driver.ObjectInfo, error) {
	if b.honour == "refuse" {
		return driver.ObjectInfo{}, errors.New("NotImplemented: Server side encryption specified but KMS is not configured")
	}
	return b.Backend.Put(ctx, key, r, size, o)
}

func (b sseMem) SSE() (string, string) { return b.sse, b.kmsKeyID }

func (b sseMem) StoredSSE(ctx context.Context, key string) (string, string, error) {
	if _, err := b.Head(ctx, key); err != nil {
		return "", "", err
	}
	switch b.honour {
	case "asked":
		return b.sse, "arn:aws:kms:us-east-1:1:key/" + b.kmsKeyID, nil
	case "other":
		return "AES256", "", nil
	}
	return "", "", nil
}

// TestDoctorSSE: with sse= in the URL, doctor reads back the encryption
// of a probe object, and fails a store that refuses it, one that stores
// plaintext, and one that stores another encryption or key; the object is
// deleted. The conditional-write check passes on its own, and the test
// acquisition (bucket leases, written to the store) fails as every write
// there would, refused by the capability probe.
func TestDoctorSSE(t *testing.T) {
	for _, tc := range []struct {
		name, sse, kmsKeyID, honour string
		want                        []string
		detail                      string
	}{
		{"honoured", "AES256", "", "asked", []string{"server-side encryption=ok", "conditional writes honoured=ok", "coordinator reachable=ok", "test acquisition and release=ok"}, "reported stored with AES256"},
		{"honoured-kms", "aws:kms", "k1", "asked", []string{"server-side encryption=ok", "conditional writes honoured=ok", "coordinator reachable=ok", "test acquisition and release=ok"}, "reported stored with aws:kms"},
		{"plaintext", "AES256", "", "none", []string{"server-side encryption=fail", "conditional writes honoured=ok", "coordinator reachable=ok", "test acquisition and release=fail"}, "reports the object stored without encryption"},
		{"other", "aws:kms", "k1", "other", []string{"server-side encryption=fail", "conditional writes honoured=ok", "coordinator reachable=ok", "test acquisition and release=fail"}, `the store reports "AES256"`},
		{"refused", "AES256", "", "refuse", []string{"server-side encryption=fail", "conditional writes honoured=skip", "coordinator reachable=skip", "test acquisition and release=skip"}, "KMS is not configured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memstore.New()
			d := &doctor{opts: DoctorOptions{Domain: "doctor/test", TTL: DefaultDoctorTTL, Timeout: DefaultDoctorTimeout}}
			d.open = func(context.Context, Location) (driver.Backend, error) {
				return sseMem{mem, tc.sse, tc.kmsKeyID, tc.honour}, nil
			}
			d.run(t.Context(), Location{Scheme: "mem", SSE: tc.sse, KMSKeyID: tc.kmsKeyID}, nil)
			wantStatuses(t, d.checks, append([]string{"store reachable=ok", "memory store exists=ok"}, tc.want...)...)
			if dt := d.checks[2].Detail; !strings.Contains(dt, tc.detail) {
				t.Errorf("detail %q, want it to say %q", dt, tc.detail)
			}
			if last := d.checks[len(d.checks)-1]; last.Status == StatusFail && !strings.Contains(last.Detail, "store ignores server-side encryption") {
				t.Errorf("test acquisition failed with %q, want it to name the ignored encryption", last.Detail)
			}
			for _, k := range mem.Keys() {
				if strings.HasPrefix(k, driver.ProbePrefix) {
					t.Errorf("probe object %q left behind", k)
				}
			}
		})
	}
	// Without sse= there is no such check.
	d := &doctor{opts: DoctorOptions{Domain: "doctor/test", TTL: DefaultDoctorTTL, Timeout: DefaultDoctorTimeout}}
	d.open = func(context.Context, Location) (driver.Backend, error) {
		return sseMem{memstore.New(), "", "", "none"}, nil
	}
	d.run(t.Context(), Location{Scheme: "mem"}, nil)
	wantStatuses(t, d.checks, "store reachable=ok", "memory store exists=ok", "conditional writes honoured=ok", "coordinator reachable=ok", "test acquisition and release=ok")
}
