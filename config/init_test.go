package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestInitFile(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	store, leases := filepath.Join(dir, "store"), filepath.Join(dir, "leases")
	for i, wantCreated := range []bool{true, false} {
		done, err := Init(ctx, "file://"+store, "file://"+leases)
		if err != nil {
			t.Fatalf("Init #%d: %v", i+1, err)
		}
		if len(done) != 2 {
			t.Fatalf("Init #%d = %+v, want the store and the lease directory", i+1, done)
		}
		for j, path := range []string{store, leases} {
			want := Resource{Kind: "directory", Name: path, Location: "file://" + path, Created: wantCreated}
			if done[j] != want {
				t.Errorf("Init #%d: resource %d = %+v, want %+v", i+1, j, done[j], want)
			}
			if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
				t.Errorf("%s is not a directory: %v", path, err)
			}
		}
	}
	// The same directory as store and coordinator counts once; the
	// default coordinator needs nothing.
	for _, coordURL := range []string{"file://" + store, ""} {
		done, err := Init(ctx, "file://"+store, coordURL)
		if err != nil || len(done) != 1 || done[0].Created {
			t.Errorf("Init(store, %q) = %+v, %v; want the store alone, existing", coordURL, done, err)
		}
	}
	done, err := Init(ctx, "mem://", "")
	if err != nil || len(done) != 1 || done[0].Kind != "memory store" || done[0].Created {
		t.Errorf("Init(mem://) = %+v, %v", done, err)
	}
}

func TestInitErrors(t *testing.T) {
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(ctx, "file://"+file, ""); err == nil {
		t.Error("Init on a regular file succeeded")
	}
	for _, tt := range []struct{ store, coord string }{
		{"dynamodb://table", ""},
		{"s3://u:s3cr3t@bucket", ""},
		{"mem://", "s3://bucket?regoin=x"},
	} {
		if _, err := Init(ctx, tt.store, tt.coord); !errors.Is(err, ErrBadURL) {
			t.Errorf("Init(%q, %q) = %v, want ErrBadURL", tt.store, tt.coord, err)
		}
	}
}
