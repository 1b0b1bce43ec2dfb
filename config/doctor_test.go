package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/objstore/driver/drivertest"
	"github.com/fencedstore/fence/objstore/driver/faulty"
	"github.com/fencedstore/fence/objstore/memstore"
)

// statuses returns "name=status" for each check.
func statuses(checks []Check) []string {
	var s []string
	for _, c := range checks {
		s = append(s, c.Name+"="+string(c.Status))
	}
	return s
}

func wantStatuses(t *testing.T, checks []Check, want ...string) {
	t.Helper()
	got := statuses(checks)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("checks:\n%s\nwant:\n%s\ndetails: %+v", strings.Join(got, "\n"), strings.Join(want, "\n"), checks)
	}
}

func TestDoctorFile(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	var seen []Check
	checks, err := Doctor(ctx, "file://"+dir, "", &DoctorOptions{Domain: "doctor/test", OnCheck: func(c Check) { seen = append(seen, c) }})
	if err != nil {
		t.Fatal(err)
	}
	wantStatuses(t, checks,
		"store reachable=ok", "directory exists=ok", "conditional writes honoured=ok",
		"coordinator reachable=ok", "test acquisition and release=ok")
	if len(seen) != len(checks) {
		t.Errorf("OnCheck saw %d checks, want %d", len(seen), len(checks))
	}
	if d := checks[4].Detail; !strings.Contains(d, `"doctor/test"`) || !strings.Contains(d, "token 1") {
		t.Errorf("acquisition detail %q", d)
	}
	// The probe leaves nothing behind; the scratch domain is the only one.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() == "_fence" {
			probes, _ := os.ReadDir(filepath.Join(dir, "_fence", "probe"))
			if len(probes) != 0 {
				t.Errorf("probe objects left behind: %v", probes)
			}
		}
	}
	// Tokens keep rising on the scratch domain across runs.
	checks, _ = Doctor(ctx, "file://"+dir, "file://"+t.TempDir(), &DoctorOptions{Domain: "doctor/test"})
	wantStatuses(t, checks,
		"store reachable=ok", "directory exists=ok", "conditional writes honoured=ok",
		"coordinator reachable=ok", "lease directory exists=ok", "conditional writes honoured by the lease store=ok",
		"test acquisition and release=ok")
	if d := checks[6].Detail; !strings.Contains(d, "token 2") {
		t.Errorf("second acquisition detail %q, want token 2 (the store's floor)", d)
	}
}

func TestDoctorMissingDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	checks, err := Doctor(t.Context(), "file://"+missing, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantStatuses(t, checks,
		"store reachable=ok", "directory exists=fail", "conditional writes honoured=skip",
		"coordinator reachable=skip", "test acquisition and release=skip")
	if !strings.Contains(checks[1].Detail, "fence init") {
		t.Errorf("detail %q does not point at fence init", checks[1].Detail)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("doctor created %s: %v", missing, err)
	}
	// A missing lease directory fails the coordinator alone.
	checks, _ = Doctor(t.Context(), "mem://", "file://"+missing, nil)
	wantStatuses(t, checks,
		"store reachable=ok", "memory store exists=ok", "conditional writes honoured=ok",
		"coordinator reachable=ok", "lease directory exists=fail", "conditional writes honoured by the lease store=skip",
		"test acquisition and release=skip")
}

func TestDoctorUnsafeStore(t *testing.T) {
	for _, skip := range []bool{false, true} {
		mem := memstore.New()
		d := &doctor{opts: DoctorOptions{Domain: "doctor/test", SkipProbe: skip, TTL: DefaultDoctorTTL, Timeout: DefaultDoctorTimeout}}
		d.open = func(context.Context, Location) (driver.Backend, error) {
			return drivertest.IgnoreConditions(mem), nil
		}
		d.run(t.Context(), Location{Scheme: "mem"}, nil)
		if !skip {
			wantStatuses(t, d.checks,
				"store reachable=ok", "memory store exists=ok", "conditional writes honoured=fail",
				"coordinator reachable=skip", "test acquisition and release=skip")
			if keys := mem.Keys(); len(keys) != 0 {
				t.Errorf("doctor wrote to a store that ignores conditional writes: %q", keys)
			}
		} else {
			// SkipProbe: the check still fails, the acquisition runs.
			wantStatuses(t, d.checks,
				"store reachable=ok", "memory store exists=ok", "conditional writes honoured=fail",
				"coordinator reachable=ok", "test acquisition and release=ok")
		}
		if dt := d.checks[2].Detail; !strings.Contains(dt, "ignores conditional writes") {
			t.Errorf("probe detail %q", dt)
		}
	}
}

// A store that refuses writes (permission, a full disk) is reported as
// not writable, not as one that ignores conditional writes.
func TestDoctorStoreNotWritable(t *testing.T) {
	b := faulty.New(memstore.New())
	b.Add(faulty.Always(faulty.OpPut, "", faulty.Fault{Err: fmt.Errorf("AccessDenied: %w", driver.ErrPermission)}))
	d := &doctor{opts: DoctorOptions{Domain: "doctor/test", TTL: DefaultDoctorTTL, Timeout: DefaultDoctorTimeout}}
	d.open = func(context.Context, Location) (driver.Backend, error) { return b, nil }
	d.run(t.Context(), Location{Scheme: "mem"}, nil)
	wantStatuses(t, d.checks,
		"store reachable=ok", "memory store exists=ok", "store writable=fail", "conditional writes honoured=skip",
		"coordinator reachable=skip", "test acquisition and release=skip")
}

func TestDoctorErrors(t *testing.T) {
	for _, tt := range []struct {
		store, coord string
		opts         *DoctorOptions
		want         error
	}{
		{"dynamodb://table", "", nil, ErrBadURL},
		{"mem://", "s3://AKIA:s3cr3t@bucket", nil, ErrBadURL},
		{"mem://", "", &DoctorOptions{Domain: "/bad"}, objstore.ErrInvalid},
	} {
		if _, err := Doctor(t.Context(), tt.store, tt.coord, tt.opts); !errors.Is(err, tt.want) {
			t.Errorf("Doctor(%q, %q) = %v, want %v", tt.store, tt.coord, err, tt.want)
		}
	}
}

// An endpoint nothing listens on fails "reachable" and skips the rest.
// Nothing is sent anywhere else: the port is closed.
func TestDoctorUnreachable(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "fence-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "fence-test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	checks, err := Doctor(t.Context(), "s3://bucket?endpoint=http://127.0.0.1:1&path_style=true", "dynamodb://table?endpoint=http://127.0.0.1:1", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantStatuses(t, checks,
		"store reachable=fail", "bucket exists=skip", "conditional writes honoured=skip",
		"coordinator reachable=fail", "table exists with the right schema=skip",
		"test acquisition and release=skip")
	if !strings.Contains(checks[0].Detail, "s3://bucket@http://127.0.0.1:1") {
		t.Errorf("detail %q does not name the store", checks[0].Detail)
	}
}
