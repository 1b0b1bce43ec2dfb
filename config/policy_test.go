package config_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/fencedstore/fence/config"
	"github.com/fencedstore/fence/policy"
)

// policyServer answers GetBucketPolicy and PutBucketPolicy for one
// bucket, as S3 does, keeping what was put.
func policyServer(t *testing.T, initial string) (url string, current func() string) {
	var mu sync.Mutex
	doc := initial
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.URL.Query()["policy"]; !ok || r.URL.Path != "/bkt" {
			http.Error(w, "unexpected request "+r.Method+" "+r.URL.String(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch r.Method {
		case http.MethodGet:
			if doc == "" {
				w.WriteHeader(http.StatusNotFound)
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchBucketPolicy</Code><Message>The bucket policy does not exist</Message></Error>`)
				return
			}
			io.WriteString(w, doc)
		case http.MethodPut:
			b, _ := io.ReadAll(r.Body)
			doc = string(b)
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() string { mu.Lock(); defer mu.Unlock(); return doc }
}

// ApplyPolicy adds fence's statements to a bucket's policy, keeping the
// others, and CheckPolicy then finds them in force.
func TestApplyPolicy(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	theirs := `{"Version":"2012-10-17","Statement":[{"Sid":"Theirs","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::bkt/*"}]}`
	ep, current := policyServer(t, theirs)
	store := "s3://bkt/tenant?endpoint=" + ep + "&path_style=true&region=us-east-1"
	ctx := context.Background()
	if err := config.CheckPolicy(ctx, store, ""); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("CheckPolicy before = %v; want the statements missing", err)
	}
	doc, err := config.ApplyPolicy(ctx, store, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Statement) != 3 || !strings.Contains(current(), `"Theirs"`) || !strings.Contains(current(), policy.SidConditionalWrites) {
		t.Fatalf("the bucket's policy after apply:\n%s", current())
	}
	if err := config.CheckPolicy(ctx, store, ""); err != nil {
		t.Fatalf("CheckPolicy after = %v", err)
	}
	if !strings.Contains(current(), "arn:aws:s3:::bkt/tenant/*/_fence/*") {
		t.Errorf("the policy is not scoped to the store's prefix:\n%s", current())
	}
	if _, err := config.ApplyPolicy(ctx, "file:///tmp/x", ""); !errors.Is(err, config.ErrNotS3) {
		t.Errorf("ApplyPolicy on a file store = %v; want ErrNotS3", err)
	}
}
