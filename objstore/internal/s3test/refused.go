package s3test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fencedstore/fence/objstore/driver"
)

// RefusedReplies checks, against a fake server that answers every
// request with one S3 error reply, that a backend reports the replies a
// retry would only get again (access denied, key too long, missing
// Content-Length, storage full, a key a POSIX store cannot hold) with their permanent driver class, after
// one request: neither its SDK nor the Store retries them. open returns
// a backend for endpoint.
func RefusedReplies(t *testing.T, open func(t *testing.T, endpoint string) driver.Backend) {
	for _, tc := range []struct {
		op     string // "put" or "head"
		status int
		code   string
		want   error
	}{
		{"put", 403, "AccessDenied", driver.ErrPermission},
		{"put", 403, "InvalidAccessKeyId", driver.ErrPermission},
		{"put", 403, "SignatureDoesNotMatch", driver.ErrPermission},
		{"head", 403, "", driver.ErrPermission},
		{"put", 400, "KeyTooLongError", driver.ErrPermanent},
		{"put", 411, "MissingContentLength", driver.ErrPermanent},
		{"put", 400, "InvalidBucketName", driver.ErrPermanent},
		{"put", 507, "XMinioStorageFull", driver.ErrNoSpace},
		{"put", 507, "InsufficientStorage", driver.ErrNoSpace},
		{"put", 409, "ObjectParentIsFile", driver.ErrPermanent},
		{"put", 409, "ExistingObjectIsDirectory", driver.ErrPermanent},
	} {
		t.Run(fmt.Sprintf("%s %d %s", tc.op, tc.status, tc.code), func(t *testing.T) {
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(tc.status)
				if r.Method != http.MethodHead {
					fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>refused by the test</Message><Key>k</Key><BucketName>bucket</BucketName><Resource>/bucket/k</Resource><RequestId>1</RequestId><HostId>1</HostId></Error>`, tc.code)
				}
			}))
			t.Cleanup(srv.Close)
			b := open(t, srv.URL)
			ctx := context.WithoutCancel(t.Context())
			var err error
			if tc.op == "head" {
				_, err = b.Head(ctx, "k")
			} else {
				_, err = b.Put(ctx, "k", bytes.NewReader([]byte("x")), 1, driver.PutOptions{Mode: driver.Create{}})
			}
			switch {
			case !errors.Is(err, tc.want) || !errors.Is(err, driver.ErrPermanent):
				t.Fatalf("err = %v, want %v (permanent)", err, tc.want)
			case errors.Is(err, driver.ErrNotFound), errors.Is(err, driver.ErrPreconditionFailed):
				t.Fatalf("err = %v: misclassified", err)
			case tc.code != "" && !strings.Contains(err.Error(), tc.code):
				t.Fatalf("err = %v, want it to name %s", err, tc.code)
			}
			if n := requests.Load(); n != 1 {
				t.Fatalf("%d requests, want 1: the refusal was retried", n)
			}
		})
	}
}
