package config

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/coord/bucketlease"
	"github.com/fencedstore/fence/coord/dynamocoord"
	"github.com/fencedstore/fence/objstore"
	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

func put(t *testing.T, b driver.Backend, key, data string) {
	t.Helper()
	if _, err := b.Put(context.Background(), key, strings.NewReader(data), int64(len(data)), driver.PutOptions{}); err != nil {
		t.Fatalf("Put %q: %v", key, err)
	}
}

func has(t *testing.T, b driver.Backend, key string) bool {
	t.Helper()
	_, err := b.Head(context.Background(), key)
	if err != nil && !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("Head %q: %v", key, err)
	}
	return err == nil
}

func TestOpenBackendFile(t *testing.T) {
	ctx := context.Background()
	abs := filepath.Join(t.TempDir(), "abs")
	t.Chdir(t.TempDir())
	for _, tt := range []struct {
		url, dir string
	}{
		{"file://./fence-data", "fence-data"},
		{"file://rel/store", filepath.Join("rel", "store")},
		{"file://" + abs, abs},
	} {
		t.Run(tt.url, func(t *testing.T) {
			b, err := OpenBackend(ctx, tt.url)
			if err != nil {
				t.Fatalf("OpenBackend: %v", err)
			}
			put(t, b, "k", "v")
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(tt.dir); err != nil || !fi.IsDir() {
				t.Fatalf("%s is not a directory after writing: %v", tt.dir, err)
			}
			// Reopening finds the data: it is on disk, not in the process.
			b, err = OpenBackend(ctx, tt.url)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if !has(t, b, "k") {
				t.Fatalf("reopened %s has lost key k", tt.url)
			}
		})
	}
}

func TestOpenBackendMem(t *testing.T) {
	ctx := context.Background()
	a, _ := OpenBackend(ctx, "mem://")
	b, _ := OpenBackend(ctx, "mem://")
	put(t, a, "k", "v")
	if has(t, b, "k") {
		t.Fatal("two mem:// stores share data")
	}

	name := "mem://" + strings.ReplaceAll(t.Name(), "/", "-")
	n1, err := OpenBackend(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	put(t, n1, "k", "v")
	if err := n1.Close(); err != nil {
		t.Fatal(err)
	}
	n2, _ := OpenBackend(ctx, name)
	rc, _, err := n2.Get(ctx, "k", driver.GetOptions{})
	if err != nil {
		t.Fatalf("a second open of %s does not see the first one's data: %v", name, err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, []byte("v")) {
		t.Fatalf("got %q", got)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	file, err := os.CreateTemp(t.TempDir(), "not-a-dir")
	if err != nil {
		t.Fatal(err)
	}
	file.Close()
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tt := range []struct {
		name    string
		open    func() error
		badURL  bool
		wantMsg string
	}{
		{"unsupported", func() error { _, err := OpenBackend(ctx, "gs://u:s3cr3t@bucket"); return err }, true, `"gs://bucket"`},
		{"s3 credentials", func() error { _, err := OpenBackend(ctx, "s3://u:s3cr3t@bucket"); return err }, true, "credentials in URLs are not accepted"},
		{"minio credentials", func() error {
			_, err := OpenBackend(ctx, "minio://bucket?endpoint=http://u:s3cr3t@127.0.0.1:9000")
			return err
		}, true, "credentials in URLs are not accepted"},
		{"dynamodb as store", func() error { _, err := OpenBackend(ctx, "dynamodb://table"); return err }, true, "not an object store"},
		{"no scheme", func() error { _, err := OpenBackend(ctx, "fence-data"); return err }, true, "file://fence-data"},
		{"file is not a directory", func() error { _, err := OpenBackend(ctx, "file://"+file.Name()); return err }, false, file.Name()},
		{"canceled", func() error { _, err := OpenBackend(canceled, "mem://"); return err }, false, "canceled"},
		{"coord credentials", func() error { _, err := OpenCoordinator(ctx, "dynamodb://u:s3cr3t@table", nil, nil); return err }, true, "credentials in URLs are not accepted"},
		{"coord secret parameter", func() error {
			_, err := OpenCoordinator(ctx, "dynamodb://table?secret_access_key=s3cr3t", nil, nil)
			return err
		}, true, "looks like a credential"},
		{"coord without store", func() error { _, err := OpenCoordinator(ctx, "", nil, nil); return err }, false, "no store"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.open()
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrBadURL) != tt.badURL {
				t.Errorf("errors.Is(%v, ErrBadURL) = %t, want %t", err, !tt.badURL, tt.badURL)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

func TestOpenCoordinator(t *testing.T) {
	ctx := context.Background()
	const domain = "d"
	record := rules.SystemKey(domain, bucketlease.RecordName)
	for _, tt := range []struct {
		name    string
		url     func(t *testing.T) string
		inStore bool // lease records live in the store's backend
	}{
		{"default", func(*testing.T) string { return "" }, true},
		{"file", func(t *testing.T) string { return "file://" + t.TempDir() }, false},
		{"mem", func(*testing.T) string { return "mem://" }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store, err := OpenBackend(ctx, "file://"+t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			c, err := OpenCoordinator(ctx, tt.url(t), store, nil)
			if err != nil {
				t.Fatalf("OpenCoordinator: %v", err)
			}
			l, err := c.TakeLease(ctx, domain, &coord.TakeOptions{Holder: "h", TTL: time.Minute})
			if err != nil || l.Token != 1 {
				t.Fatalf("Acquire = %+v, %v", l, err)
			}
			if got := has(t, store, record); got != tt.inStore {
				t.Errorf("lease record in the store: %t, want %t", got, tt.inStore)
			}
			if err := c.Release(ctx, l); err != nil {
				t.Fatal(err)
			}
			if err := CloseCoordinator(c); err != nil {
				t.Fatal(err)
			}
			// Closing the coordinator leaves the store usable.
			put(t, store, "after", "x")
		})
	}
}

// Remote URLs open the right backend or coordinator, sending nothing.
func TestOpenRemote(t *testing.T) {
	ctx := context.Background()
	t.Setenv("AWS_REGION", "eu-west-1")
	for _, tt := range []struct{ url, location string }{
		{"s3://bucket/p/q?endpoint=http://127.0.0.1:9000&path_style=true", "s3://bucket/p/q@http://127.0.0.1:9000"},
		{"s3://bucket?region=eu-central-1", "s3://bucket@https://s3.eu-central-1.amazonaws.com"},
		{"minio://bucket/p?endpoint=http://127.0.0.1:9000", "minio://bucket/p@http://127.0.0.1:9000"},
		{"minio://bucket?endpoint=https://minio.example.com:9000&sse=AES256", "minio://bucket@https://minio.example.com:9000"},
	} {
		b, err := OpenBackend(ctx, tt.url)
		if err != nil {
			t.Errorf("OpenBackend(%q): %v", tt.url, err)
			continue
		}
		if got := b.Location(); got != tt.location {
			t.Errorf("OpenBackend(%q) writes to %q, want %q", tt.url, got, tt.location)
		}
		b.Close()
	}

	c, err := OpenCoordinator(ctx, "dynamodb://fence-leases?endpoint=http://127.0.0.1:8000&region=us-east-1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if dd, ok := c.Driver().(*dynamocoord.Driver); !ok || dd.Table() != "fence-leases" {
		t.Errorf("OpenCoordinator(dynamodb://fence-leases) has driver %T %v", c.Driver(), c.Driver())
	}
	if _, ok := LeaseBackend(c); ok {
		t.Error("LeaseBackend of a DynamoDB coordinator")
	}
	if err := CloseCoordinator(c); err != nil {
		t.Error(err)
	}

	// A store URL as the coordinator: bucket leases in that bucket.
	c, err = OpenCoordinator(ctx, "minio://leases?endpoint=http://127.0.0.1:9000", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	lb, ok := LeaseBackend(c)
	if !ok || lb.Location() != "minio://leases@http://127.0.0.1:9000" {
		t.Errorf("LeaseBackend = %v, %t", lb, ok)
	}
	CloseCoordinator(c)
}
