package gcsstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
	"github.com/fencedstore/fence/rules"
)

// answering returns a backend on a server that answers every request with
// status and a GCS JSON error of reason, and the count of requests.
func answering(t *testing.T, status int, reason string) (*Backend, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"code":%d,"message":"%s","errors":[{"reason":"%s","message":"%s"}]}}`, status, reason, reason, reason)
	}))
	t.Cleanup(srv.Close)
	b, err := Open(t.Context(), "bucket", "", &Options{Endpoint: srv.URL, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, &n
}

func put(b *Backend, mode driver.PutMode) error {
	_, err := b.Put(context.Background(), "k", strings.NewReader("v"), 1, driver.PutOptions{Mode: mode})
	return err
}

// TestRateLimited: a 429 is reported as rate limiting, which the Store
// retries after reading back; never as a failed precondition (which the
// Store would take for a lost race), a conflict or a permanent refusal.
func TestRateLimited(t *testing.T) {
	for _, mode := range []driver.PutMode{nil, driver.Create{}, driver.Update{ETag: "7"}} {
		b, _ := answering(t, http.StatusTooManyRequests, "rateLimitExceeded")
		err := put(b, mode)
		switch {
		case !errors.Is(err, ErrRateLimited):
			t.Fatalf("put (%T) answered 429: %v; want ErrRateLimited", mode, err)
		case errors.Is(err, driver.ErrPreconditionFailed), errors.Is(err, driver.ErrConflict), errors.Is(err, driver.ErrPermanent), errors.Is(err, driver.ErrNotFound):
			t.Fatalf("put (%T) answered 429 is classified as %v", mode, err)
		case !strings.Contains(err.Error(), "rate limited"):
			t.Fatalf("put answered 429: %q does not say it was rate limited", err)
		}
	}
}

// TestNoGeneration: an Update whose ETag is no generation (0 would mean
// no condition at all to GCS) fails its precondition without a request.
func TestNoGeneration(t *testing.T) {
	b, n := answering(t, http.StatusOK, "unused")
	for _, tag := range []string{"0", "-3", "abc", `"5"`} {
		if err := put(b, driver.Update{ETag: tag}); !errors.Is(err, driver.ErrPreconditionFailed) {
			t.Fatalf("Update{ETag: %q}: %v; want ErrPreconditionFailed", tag, err)
		}
	}
	if n.Load() != 0 {
		t.Fatalf("%d requests sent for updates that cannot hold", n.Load())
	}
}

// TestCredentialsRefused: a 401 names the credentials.
func TestCredentialsRefused(t *testing.T) {
	b, _ := answering(t, http.StatusUnauthorized, "required")
	err := put(b, driver.Create{})
	if !errors.Is(err, driver.ErrPermission) || !strings.Contains(err.Error(), "credentials") {
		t.Fatalf("put answered 401: %v; want ErrPermission naming the credentials", err)
	}
}

// TestUnreachable: a store that nothing listens on fails fast, naming
// the connection.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	b, err := Open(t.Context(), "bucket", "", &Options{Endpoint: "http://" + addr, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	err = put(b, driver.Create{})
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("put to %s, where nothing listens: %v; want an error naming the refused connection", addr, err)
	}
	if _, err := b.BucketExists(t.Context()); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("BucketExists at %s: %v", addr, err)
	}
}

// TestNoCredentials: without Application Default Credentials, Open of
// Google Cloud Storage fails and says where credentials come from.
func TestNoCredentials(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", t.TempDir()+"/missing.json")
	_, err := Open(t.Context(), "bucket", "", nil)
	if err == nil || !strings.Contains(err.Error(), "Application Default Credentials") || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("Open with GOOGLE_APPLICATION_CREDENTIALS naming a missing file: %v", err)
	}
}

func TestInvalid(t *testing.T) {
	for _, tt := range []struct {
		bucket string
		opts   Options
	}{
		{"B", Options{}},
		{"ab", Options{}},
		{"googbucket", Options{}},
		{"bucket", Options{ChunkSize: 1000}},
		{"bucket", Options{MaxAttempts: -1}},
		{"bucket", Options{Endpoint: "127.0.0.1:4443"}},
		{"bucket", Options{Endpoint: "http://u:p@127.0.0.1:4443"}},
	} {
		if _, err := Open(t.Context(), tt.bucket, "", &tt.opts); !errors.Is(err, rules.ErrInvalid) || strings.Contains(fmt.Sprint(err), "u:p") {
			t.Errorf("Open(%q, %+v): %v; want rules.ErrInvalid without credentials", tt.bucket, tt.opts, err)
		}
	}
}

// TestCheckKey: the prefix counts towards GCS's 1024 bytes.
func TestCheckKey(t *testing.T) {
	b, _ := answering(t, http.StatusOK, "unused")
	nb, err := New(b.client, "bucket", "tenant", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := nb.CheckKey(strings.Repeat("k", MaxObjectNameLen-len("tenant/"))); err != nil {
		t.Fatalf("a key that fits with the prefix: %v", err)
	}
	err = nb.CheckKey(strings.Repeat("k", MaxObjectNameLen-len("tenant/")+1))
	if !errors.Is(err, rules.ErrInvalid) || !strings.Contains(err.Error(), `prefix "tenant/"`) {
		t.Fatalf("a key one byte too long with the prefix: %v; want rules.ErrInvalid naming the prefix", err)
	}
}
